import { Kysely, Migrator, sql } from 'kysely';
import type { Engine } from './dialects/types.ts';
import { migrationProvider } from './migrations/index.ts';
import type { Database, Db } from './schema.ts';

export interface Storage {
  readonly db: Db;
  readonly engine: Engine;
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export interface StorageOptions {
  /** SQLite only: how long to wait for another process's write lock (ms); see dialects/sqlite.ts. */
  sqliteBusyTimeoutMs?: number;
  /** SQLite only: the connection's page cache (MiB); see dialects/sqlite.ts. */
  sqliteCacheMiB?: number;
  /** SQLite only: checkpoint the WAL on a worker thread (the server; see dialects/sqlite-checkpointer.ts). */
  sqliteBackgroundCheckpoint?: boolean;
}

/** Opens the database the URL names; only that engine's driver is loaded (pg or better-sqlite3). */
export async function openStorage(databaseUrl: string, options: StorageOptions = {}): Promise<Storage> {
  const engine = isPostgresUrl(databaseUrl)
    ? (await import('./dialects/postgres.ts')).createPostgresEngine(databaseUrl)
    : (await import('./dialects/sqlite.ts')).createSqliteEngine(databaseUrl, {
        busyTimeoutMs: options.sqliteBusyTimeoutMs,
        cacheMiB: options.sqliteCacheMiB,
        backgroundCheckpoint: options.sqliteBackgroundCheckpoint,
      });
  const db = new Kysely<Database>({ dialect: engine.dialect });
  return { db, engine, close: () => db.destroy() };
}

/** Brings the schema up to date; safe to call from several processes at once on PostgreSQL. */
export async function migrate(storage: Storage): Promise<void> {
  const run = async () => {
    const { error, results } = await new Migrator({ db: storage.db, provider: migrationProvider }).migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (error || failed) {
      throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
    }
  };
  // Kysely's Migrator already takes a lock on PostgreSQL; SQLite has one writer.
  await run();
}

/** Whether the database answers a trivial query (GET /ready). */
export async function pingDatabase(db: Db): Promise<boolean> {
  await sql`select 1`.execute(db);
  return true;
}
