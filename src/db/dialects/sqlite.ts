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
import { BACKSTOP_PAGES, BackgroundCheckpointer, SQLITE_DEFAULT_PAGES } from './sqlite-checkpointer.ts';
import type { Engine, JsonSql } from './types.ts';

/** `./data/venue.sqlite`, `sqlite:PATH`, or `:memory:`. */
export function sqlitePath(url: string): string {
  return url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
}

/**
 * Kysely prepares every query anew, a cost worth saving on every request (bench/README.md).
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
 * Group commit: the write transactions that run together share one COMMIT, so one fsync
 * (synchronous=FULL) makes a whole group durable instead of one request each, the cost that
 * bounded writes a second.
 *
 * The first transaction of a group begins it (BEGIN IMMEDIATE: the write lock, so a check made
 * at a transaction's start, an Idempotency-Key or a version, still holds at its commit,
 * across processes); each transaction is a savepoint inside it, released on success and
 * rolled back alone on failure. A transaction's end schedules the group's COMMIT for the
 * event loop's next check phase (setImmediate): better-sqlite3 is synchronous, so every
 * request whose bytes arrived in the same turn has run its transaction by then.
 * `committed()` resolves when the group holding everything finished so far is durable; the
 * write pipeline answers only after it. A read in between sees a group's rows a moment
 * before they are durable; were that COMMIT to fail (a disk error), the writers get errors.
 */
const SAVEPOINT = 'venue_write';

interface Group {
  promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

function newGroup(): Group {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A group nobody awaits (only reads and background writes joined it) must not be an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

const raw = (text: string) => CompiledQuery.raw(text);

class GroupCommitDriver extends SqliteDriver {
  private group: Group | null = null;
  private scheduled = false;

  constructor(
    private readonly database: SQLite.Database,
    config: { database: SqliteDatabase },
    private readonly checkpointer: BackgroundCheckpointer | null = null,
  ) {
    super(config);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.database.inTransaction) {
      await connection.executeQuery(raw('begin immediate'));
      this.group = newGroup();
    }
    await connection.executeQuery(raw(`savepoint ${SAVEPOINT}`));
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(raw(`release ${SAVEPOINT}`));
    this.schedule();
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // Some errors (a full disk) end the whole transaction; then there is no savepoint left.
    if (this.database.inTransaction) {
      await connection.executeQuery(raw(`rollback to ${SAVEPOINT}`));
      await connection.executeQuery(raw(`release ${SAVEPOINT}`));
    }
    this.schedule();
  }

  /** Resolves once every transaction finished so far is durable (or rejects: its group failed). */
  committed(): Promise<void> {
    return this.group?.promise ?? Promise.resolve();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  /** Commits the open group, between transactions (it takes the connection like one). */
  async flush(): Promise<void> {
    this.scheduled = false;
    const connection = await this.acquireConnection();
    const group = this.group;
    this.group = null;
    try {
      if (this.database.inTransaction) await connection.executeQuery(raw('commit'));
      else if (group) throw new Error('the transaction of a group commit ended before its commit');
      group?.resolve();
      if (group) this.checkpointer?.written();
    } catch (err) {
      if (this.database.inTransaction) this.database.exec('rollback');
      group?.reject(err);
    } finally {
      await this.releaseConnection();
    }
  }

  override async destroy(): Promise<void> {
    await this.flush();
    await this.checkpointer?.close();
    await super.destroy();
  }
}

class GroupCommitDialect extends SqliteDialect {
  constructor(private readonly driver: GroupCommitDriver) {
    super({ database: {} as SqliteDatabase });
  }
  override createDriver(): Driver {
    return this.driver;
  }
}

/**
 * SQLite's JSON1 functions. A value built by json_object or json() keeps JSON's subtype, so it
 * nests as JSON, not as a string. strftime's %f counts whole milliseconds from the real
 * seconds (rounded, as julian-day milliseconds are integers), which matches toISOString.
 */
const sqliteJson: JsonSql = {
  object: (pairs) => sql`json_object(${sql.join(pairs.flatMap(([k, v]) => [sql.lit(k), v]))})`,
  bool: (condition) => sql`json(case when ${condition} then 'true' else 'false' end)`,
  instant: (ms) => sql<string | null>`strftime('%Y-%m-%dT%H:%M:%fZ', ${ms} / 1000.0, 'unixepoch')`,
  arrayAgg: (value, orderBy) => sql`json_group_array(${value} order by ${sql.join(orderBy)})`,
  emptyArray: () => sql`json('[]')`,
};

/**
 * The server's wait for another process's write lock (the CLI's seed, import or undo, or the
 * sqlite3 shell). better-sqlite3 waits synchronously, stopping every request of the process
 * meanwhile, so the server waits only this long and answers 503 (src/db/unavailable.ts); the CLI,
 * which serves nobody while it waits, asks for longer.
 */
export const DEFAULT_BUSY_TIMEOUT_MS = 50;

/**
 * SQLite's page cache a connection keeps (MiB), on top of the operating system's cache of
 * the file: large enough for the hot index pages, small enough not to be most of the
 * process's memory (bench/README.md compares 32 with 64).
 */
export const DEFAULT_CACHE_MIB = 32;

export interface SqliteOptions {
  /** How long to wait for another process's write lock (ms). */
  busyTimeoutMs?: number;
  /** The page cache (MiB); DEFAULT_CACHE_MIB when unset. */
  cacheMiB?: number;
  /**
   * Checkpoint the WAL on a worker thread (sqlite-checkpointer.ts) instead of inside the
   * COMMIT that passes 1,000 pages: for the server, whose event loop serves everyone.
   */
  backgroundCheckpoint?: boolean;
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
  database.pragma(`cache_size = -${Math.max(1, Math.trunc(options.cacheMiB ?? DEFAULT_CACHE_MIB)) * 1024}`);
  // Analyse what needs it now (0x10002: also tables never analysed), as SQLite advises at open.
  database.pragma('optimize = 0x10002');
  let checkpointer: BackgroundCheckpointer | null = null;
  if (options.backgroundCheckpoint && path !== ':memory:' && path !== '') {
    checkpointer = new BackgroundCheckpointer(path, () => {
      // The worker is gone: SQLite's own checkpoints again, inside COMMIT.
      if (database.open) database.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
    });
    database.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  }
  const driver = new GroupCommitDriver(database, { database: withStatementCache(database) }, checkpointer);
  return {
    name: 'sqlite',
    dialect: new GroupCommitDialect(driver),
    committed: () => driver.committed(),
    // One process serves a SQLite file, so the job always runs here.
    async withJobLock(_db, _lock, fn) {
      return { ran: true, value: await fn() };
    },
    maxInsertRows: (columns) => Math.max(1, Math.floor(32_000 / columns)),
    // A group's BEGIN IMMEDIATE already makes every write transaction the only one, across processes.
    tryTransactionLock: async () => true,
    refreshStatistics: async (db) => {
      await sql`pragma optimize`.execute(db);
    },
    greatest: (a, b) => sql`max(${a}, ${b})`,
    json: sqliteJson,
  };
}
