import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate, openStorage } from '../../src/db/index.ts';
import { type AppStorage, withWrites } from '../../src/storage.ts';

/** The engines every storage and HTTP suite runs on (CONVENTIONS 11). */
export const ENGINES = (process.env.TEST_ENGINES ?? 'sqlite,postgres').split(',') as ('sqlite' | 'postgres')[];

export const PG_SERVER = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

export interface TestStorage extends AppStorage {
  url: string;
  /** Closes the storage and removes its database. */
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new, migrated, empty database of that engine: a temp SQLite file or a new PG database. */
export async function freshStorage(engine: 'sqlite' | 'postgres'): Promise<TestStorage> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'venue-test-'));
    const url = join(dir, 'venue.sqlite');
    const storage = withWrites(await openStorage(url));
    await migrate(storage);
    return {
      ...storage,
      url,
      drop: async () => {
        await storage.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `venue_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = `${PG_SERVER}/${name}`;
  const storage = withWrites(await openStorage(url));
  await migrate(storage);
  return {
    ...storage,
    url,
    drop: async () => {
      await storage.close();
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** A new PostgreSQL database with nothing in it, not even the schema: what a first deploy meets. */
export async function emptyPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `venue_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    url: `${PG_SERVER}/${name}`,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
