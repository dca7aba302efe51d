import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  sql,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
} from 'kysely';
import type { Engine } from './types.ts';

/** `./data/venue.sqlite`, `sqlite:PATH`, or `:memory:`. */
export function sqlitePath(url: string): string {
  return url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
}

/**
 * Kysely prepares every query anew; preparing was about a tenth of a list request's CPU.
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
 * Every transaction takes the write lock when it begins (BEGIN IMMEDIATE), so one that reads
 * then writes waits for another process (the CLI's undo, say) instead of failing with
 * SQLITE_BUSY; and a check made at its start (an Idempotency-Key, a version) still holds
 * at its commit, across processes.
 */
class ImmediateDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: SqliteDatabase) {
    super({ database });
  }
  override createDriver(): Driver {
    return new ImmediateDriver({ database: this.database });
  }
}

/**
 * The server's wait for another process's write lock (the CLI's seed, import or undo, or the
 * sqlite3 shell). better-sqlite3 waits synchronously, stopping every request of the process
 * meanwhile, so the server waits only this long and answers 503 (src/db/busy.ts); the CLI,
 * which serves nobody while it waits, asks for longer.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 50;

export function createSqliteEngine(url: string, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS): Engine {
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path);
  // DECISIONS "Durability": WAL with synchronous=FULL survives a power cut, not only a crash.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
  database.pragma('cache_size = -65536');
  // Analyse what needs it now (0x10002: also tables never analysed), as SQLite advises at open.
  database.pragma('optimize = 0x10002');
  return {
    name: 'sqlite',
    dialect: new ImmediateSqliteDialect(withStatementCache(database)),
    // One process serves a SQLite file, so the job always runs here.
    async withJobLock(_db, _lock, fn) {
      return { ran: true, value: await fn() };
    },
    maxInsertRows: (columns) => Math.max(1, Math.floor(32_000 / columns)),
    // BEGIN IMMEDIATE already makes every write transaction the only one, across processes.
    tryTransactionLock: async () => true,
    refreshStatistics: async (db) => {
      await sql`pragma optimize`.execute(db);
    },
    greatest: (a, b) => sql`max(${a}, ${b})`,
  };
}
