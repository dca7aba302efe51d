import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql, type SqliteDatabase } from 'kysely';
import { GroupCommitDialect, GroupCommitDriver } from './sqlite-group-commit.ts';
import { sqlitePath } from '../database-url.ts';
import type { Engine } from './types.ts';

/**
 * Kysely prepares every query anew, a cost worth saving on every request (ARCHITECTURE.md,
 * "Machinery that pays").
 * A statement is reusable once run (Kysely runs them to completion), so keep the most recent
 * few hundred by their SQL text: the queries the API makes are a small, fixed set of shapes.
 */
function withStatementCache(database: SQLite.Database, max = 500): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql); // most recently used last
      } else {
        statement = database.prepare(sql);
        if (statements.size >= max) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

/**
 * The server's wait for another process's write lock (the CLI's seed, import or undo, or the
 * sqlite3 shell). better-sqlite3 waits synchronously, stopping every request of the process
 * meanwhile, so the server waits only this long and answers 503 (src/db/unavailable.ts); the CLI,
 * which serves nobody while it waits, asks for longer.
 */
const DEFAULT_BUSY_TIMEOUT_MS = 50;

export interface SqliteOptions {
  /** How long to wait for another process's write lock (ms). */
  busyTimeoutMs?: number;
  /**
   * The page cache (MiB); unset, better-sqlite3's own (16 MB). The operating system caches the
   * file as well; 32 MiB measured no faster, 2 MiB slower on some figures (bench/results/).
   */
  cacheMiB?: number;
}

export function createSqliteEngine(url: string, options: SqliteOptions = {}): Engine {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path);
  // DECISIONS "Durability": WAL with synchronous=FULL survives a power cut, not only a crash.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
  if (options.cacheMiB !== undefined)
    database.pragma(`cache_size = -${Math.max(1, Math.trunc(options.cacheMiB)) * 1024}`);
  // Analyse what needs it now (0x10002: also tables never analysed), as SQLite advises at open.
  // It writes statistics: on a full disk they wait, and the process still opens to serve reads.
  try {
    database.pragma('optimize = 0x10002');
  } catch {
    // Statistics are an optimisation; the hourly refresh tries again.
  }
  // The WAL is copied back into the database file by SQLite's own checkpoint, inside the
  // COMMIT that passes wal_autocheckpoint's 1,000 pages.
  const driver = new GroupCommitDriver(database, { database: withStatementCache(database) });
  return {
    name: 'sqlite',
    insertsInWith: false,
    connections: () => null,
    walBytes: () => {
      if (path === ':memory:') return null;
      try {
        return statSync(`${path}-wal`).size;
      } catch {
        return 0; // no WAL file: nothing written since the last connection closed
      }
    },
    dialect: new GroupCommitDialect(driver),
    durable: () => driver.durable(),
    // One process serves a SQLite file, so the job always runs here.
    async withJobLock(_db, _lock, fn) {
      return { ran: true, value: await fn() };
    },
    maxInsertRows: (columns) => Math.max(1, Math.floor(32_000 / columns)),
    pauseMembershipCounts: async () => false,
    refreshStatistics: async (db) => {
      await sql`pragma optimize`.execute(db);
    },
    greatest: (a, b) => sql`max(${a}, ${b})`,
    // A write transaction is the only one of its database already: nothing to skip.
    claimRows: (query) => query,
  };
}
