import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/db/dialects/types.ts';
import type { Db } from '../../src/db/schema.ts';
import { writePath } from '../../src/db/write.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The one write path (src/db/write.ts): a write is durable when it returns, on both
 * engines, and the storage remembers whether writes are failing for want of disk or
 * database (for /health), until one succeeds again.
 */
const tag = (id: string) => ({ id, workspace_id: 'wsp_path', name: id, created_at: 1, updated_at: 1 });

describe.each(ENGINES)('the write path on %s', (engine) => {
  let storage: TestStorage;
  /** Another connection, as another process would have: what it sees is committed. */
  let witness: (id: string) => Promise<boolean>;
  let closeWitness: () => Promise<void>;

  beforeAll(async () => {
    storage = await freshStorage(engine);
    if (engine === 'sqlite') {
      const db = new SQLite(storage.url, { readonly: true });
      witness = async (id) => db.prepare('select 1 from tags where id = ?').get(id) !== undefined;
      closeWitness = async () => void db.close();
    } else {
      const client = new pg.Client({ connectionString: storage.url });
      await client.connect();
      witness = async (id) => (await client.query('select 1 from tags where id = $1', [id])).rowCount === 1;
      closeWitness = () => client.end();
    }
  });
  afterAll(async () => {
    await closeWitness?.();
    await storage?.drop();
  });

  it('a write has committed for everyone when it returns, and answers what its function answered', async () => {
    const value = await storage.write(async (tx) => {
      await tx.insertInto('tags').values(tag('tag_seen')).execute();
      return 'done';
    });
    expect(value).toBe('done');
    expect(await witness('tag_seen')).toBe(true);
    expect(storage.writeHealth()).toMatchObject({ failing: false, since: null, reason: null });
    expect(storage.writeHealth().lastSuccessAt).toEqual(expect.any(Number));
  });

  it('a write that throws rejects with its error and stores nothing', async () => {
    const refused = storage.write(async (tx) => {
      await tx.insertInto('tags').values(tag('tag_refused')).execute();
      throw new Error('refused');
    });
    await expect(refused).rejects.toThrow('refused');
    expect(await witness('tag_refused')).toBe(false);
    // A write refused for its own reasons says nothing about the database's health.
    expect(storage.writeHealth().failing).toBe(false);
  });
});

describe('write health on a full SQLite disk', () => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    await sql`create table filler (id integer primary key, v blob)`.execute(storage.db);
  });
  afterAll(async () => storage?.drop());

  const fill = () =>
    storage.write((tx) =>
      tx
        .insertInto('filler' as 'tags')
        .values({ v: Buffer.alloc(200_000, 1) } as never)
        .execute(),
    );

  it('reports writes failing from the first SQLITE_FULL, and clears once a write succeeds', async () => {
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(storage.db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + 4}`).execute(storage.db);
    await expect(fill()).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    const first = storage.writeHealth();
    expect(first).toMatchObject({ failing: true, reason: 'full' });
    expect(first.since).toEqual(expect.any(Number));
    await expect(fill()).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    expect(storage.writeHealth().since).toBe(first.since); // since the first failure of the run
    await sql.raw('pragma max_page_count = 1073741823').execute(storage.db);
    await fill();
    expect(storage.writeHealth()).toMatchObject({ failing: false, since: null, reason: null });
  });
});

describe('write health, by kind of failure', () => {
  /** A database whose every transaction fails with `next`, and an engine with nothing to wait for. */
  function failingPath(clock: () => number) {
    let next: unknown = null;
    const db = {
      transaction: () => ({
        execute: async (fn: (tx: unknown) => Promise<unknown>) => {
          const value = await fn({});
          if (next) throw next;
          return value;
        },
      }),
    } as unknown as Db;
    const engine = { durable: () => Promise.resolve() } as unknown as Engine;
    return { path: writePath(db, engine, clock), failWith: (err: unknown) => (next = err) };
  }
  const coded = (code: string) => Object.assign(new Error(code), { code });

  it('an unreachable database counts as failing (down); a busy lock or a refused write does not', async () => {
    let now = 1_000;
    const { path, failWith } = failingPath(() => now);
    failWith(coded('SQLITE_BUSY'));
    await expect(path.write(async () => 1)).rejects.toThrow();
    expect(path.writeHealth().failing).toBe(false);
    failWith(coded('23505')); // a unique violation: the write's own fault
    await expect(path.write(async () => 1)).rejects.toThrow();
    expect(path.writeHealth().failing).toBe(false);
    failWith(coded('ECONNREFUSED'));
    await expect(path.write(async () => 1)).rejects.toThrow();
    expect(path.writeHealth()).toEqual({ failing: true, since: 1_000, reason: 'down', lastSuccessAt: null });
    now = 2_000;
    failWith(coded('SQLITE_IOERR_WRITE'));
    await expect(path.write(async () => 1)).rejects.toThrow();
    expect(path.writeHealth()).toEqual({ failing: true, since: 1_000, reason: 'down', lastSuccessAt: null });
    now = 3_000;
    failWith(null);
    await path.write(async () => 1);
    expect(path.writeHealth()).toEqual({ failing: false, since: null, reason: null, lastSuccessAt: 3_000 });
  });
});
