import { Kysely, sql } from 'kysely';
import { isPostgresUrl } from './database-url.ts';
export { isPostgresUrl };
import type { PostgresOptions } from './dialects/postgres.ts';
import type { Engine } from './dialects/types.ts';
import { migrateToLatest } from './migrate.ts';
import type { Database, Db } from './schema.ts';
import { DatabaseUnavailable } from './unavailable.ts';
import { type EngineWriter, writePath, type WriteHealth } from './write.ts';

export interface Storage extends EngineWriter {
  readonly engine: Engine;
  /** Whether writes are failing for want of disk or database (src/db/write.ts). */
  writeHealth(): WriteHealth;
  /** Commits what is open and closes; rejects when that last COMMIT fails. */
  close(): Promise<void>;
}

export interface StorageOptions {
  /** SQLite only: how long to wait for another process's write lock (ms); see dialects/sqlite.ts. */
  sqliteBusyTimeoutMs?: number;
  /** SQLite only: the connection's page cache (MiB); see dialects/sqlite.ts. */
  sqliteCacheMiB?: number;
  /** PostgreSQL only: the pool's timeouts and keep-alive; see dialects/postgres.ts. */
  postgres?: PostgresOptions;
}

/** Opens the database the URL names; only that engine's driver is loaded (pg or better-sqlite3). */
export async function openStorage(databaseUrl: string, options: StorageOptions = {}): Promise<Storage> {
  const engine = isPostgresUrl(databaseUrl)
    ? (await import('./dialects/postgres.ts')).createPostgresEngine(databaseUrl, options.postgres)
    : (await import('./dialects/sqlite.ts')).createSqliteEngine(databaseUrl, {
        busyTimeoutMs: options.sqliteBusyTimeoutMs,
        cacheMiB: options.sqliteCacheMiB,
      });
  const db = new Kysely<Database>({ dialect: engine.dialect });
  const { write, writeStatement, writeHealth } = writePath(db, engine);
  return { db, engine, write, writeStatement, writeHealth, close: () => db.destroy() };
}

/**
 * Brings the schema up to date (src/db/migrate.ts); safe from several processes at once on
 * PostgreSQL, and a no-op on a database one migration ahead of this version.
 */
export async function migrate(storage: Storage): Promise<void> {
  await migrateToLatest(storage);
}

/**
 * Whether the database answers a trivial query within `timeoutMs` (GET /ready). A connection
 * gone silent would keep the query waiting: the answer does not wait with it.
 */
export async function pingDatabase(db: Db, timeoutMs = 2_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DatabaseUnavailable('timeout', 'the database did not answer in time')),
      timeoutMs,
    );
  });
  try {
    await Promise.race([sql`select 1`.execute(db), late]);
    return true;
  } finally {
    clearTimeout(timer);
  }
}
