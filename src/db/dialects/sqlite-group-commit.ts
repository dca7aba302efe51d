import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDriver,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type SqliteDatabase,
} from 'kysely';
import { DatabaseUnavailable } from '../unavailable.ts';

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
 *
 * A transaction learns its own group (`durable()`, inside it) and is durable once that
 * group's COMMIT succeeded; src/db/write.ts waits for it. A group settles exactly once:
 * committed; or failed, because its COMMIT failed or SQLite rolled it back as a whole (a
 * full disk or an I/O error can end the whole transaction, not one savepoint). A failed
 * group rejects every transaction it held with that error, at once, and the next
 * transaction begins a new group. A read in between sees a group's rows a moment before
 * they are durable.
 */
const SAVEPOINT = 'venue_write';

class Group {
  readonly promise: Promise<void>;
  /** Set once the group settled with an error; later statements of its transaction fail with it. */
  failure: unknown = null;
  private settled = false;
  private resolveFn!: () => void;
  private rejectFn!: (err: unknown) => void;

  constructor() {
    this.promise = new Promise<void>((resolve, reject) => {
      this.resolveFn = resolve;
      this.rejectFn = reject;
    });
    // A group nobody awaits (only reads and background writes joined it) must not be an unhandled rejection.
    this.promise.catch(() => undefined);
  }

  get open(): boolean {
    return !this.settled;
  }

  resolve(): void {
    if (this.settled) throw new Error('a group commit settled twice');
    this.settled = true;
    this.resolveFn();
  }

  reject(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.failure = err ?? new Error('the group commit failed');
    this.rejectFn(this.failure);
  }
}

const raw = (text: string) => CompiledQuery.raw(text);

/**
 * Kysely's SQLite driver does the connection (better-sqlite3's one, taken in turn); this
 * driver, around it, does the transactions.
 */
export class GroupCommitDriver implements Driver {
  private readonly inner: SqliteDriver;
  /** The group open now: its BEGIN ran, its COMMIT has not. */
  private group: Group | null = null;
  /** The group of the transaction running now, from its begin to its commit or rollback. */
  private current: Group | null = null;
  private scheduled = false;
  private guardedConnection: { inner: DatabaseConnection; outer: DatabaseConnection } | null = null;

  constructor(
    private readonly database: SQLite.Database,
    config: { database: SqliteDatabase },
  ) {
    this.inner = new SqliteDriver(config);
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  /** Inside a transaction: its group's promise, settled when that group commits or fails. */
  durable(): Promise<void> {
    if (!this.current) throw new Error('durable() is asked inside a transaction only');
    return this.current.promise;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.inner.acquireConnection();
    if (this.guardedConnection?.inner !== inner) this.guardedConnection = { inner, outer: this.guard(inner) };
    return this.guardedConnection.outer;
  }

  /**
   * Every statement passes here: one that finds its group already failed does not run (it
   * would run outside any transaction), and one after which SQLite holds no transaction
   * while a group is open means SQLite rolled the group back: every transaction of it fails.
   */
  private guard(inner: DatabaseConnection): DatabaseConnection {
    const check = (err: unknown) => {
      if (this.group && !this.database.inTransaction) this.abandon(this.group, err);
    };
    // better-sqlite3 runs a statement synchronously (Kysely's SqliteConnection throws at once),
    // so the checks add no promise of their own to every statement.
    return {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        if (this.current?.failure) return Promise.reject(this.current.failure);
        let result: Promise<QueryResult<R>>;
        try {
          result = inner.executeQuery<R>(query);
        } catch (err) {
          check(err);
          throw err;
        }
        if (this.current && this.group === this.current && !this.database.inTransaction) {
          const err = new DatabaseUnavailable('down', 'the transaction of a group commit ended before its COMMIT');
          check(err);
          return Promise.reject(err);
        }
        return result;
      },
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
  }

  /** A group SQLite rolled back as a whole: its transactions fail with the error, a new group starts. */
  private abandon(group: Group, err: unknown): void {
    if (this.group === group) this.group = null;
    group.reject(err);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.database.inTransaction) {
      // Never replace a group that has not settled: its transactions would wait forever.
      if (this.group) {
        this.abandon(this.group, new DatabaseUnavailable('down', 'the transaction of a group commit ended unseen'));
      }
      await connection.executeQuery(raw('begin immediate'));
    }
    this.group ??= new Group();
    try {
      await connection.executeQuery(raw(`savepoint ${SAVEPOINT}`));
    } catch (err) {
      this.schedule(); // the group may hold finished transactions: it still commits
      throw err;
    }
    this.current = this.group;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(raw(`release ${SAVEPOINT}`));
    this.current = null;
    this.schedule();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const group = this.current;
    this.current = null;
    // A group SQLite rolled back has no savepoint left (and `guard` has failed it already).
    if (group?.open && this.database.inTransaction) {
      try {
        await connection.executeQuery(raw(`rollback to ${SAVEPOINT}`));
        await connection.executeQuery(raw(`release ${SAVEPOINT}`));
      } catch (err) {
        // The savepoint could not be undone: nothing of the group can be trusted to commit.
        this.rollbackGroup(group, err);
      }
    }
    this.schedule();
  }

  private rollbackGroup(group: Group, err: unknown): void {
    try {
      if (this.database.inTransaction) this.database.exec('rollback');
    } finally {
      this.abandon(group, err);
    }
  }

  private schedule(): void {
    if (this.scheduled || !this.group) return;
    this.scheduled = true;
    // The COMMIT's error has reached every transaction of the group; nothing is left to tell.
    setImmediate(() => void this.flush().catch(() => undefined));
  }

  /** Commits the open group, between transactions (it takes the connection like one); throws when COMMIT fails. */
  async flush(): Promise<void> {
    this.scheduled = false;
    if (!this.group) return;
    const connection = await this.acquireConnection();
    try {
      const group = this.group;
      if (!group) return;
      this.group = null;
      try {
        if (!this.database.inTransaction) {
          throw new DatabaseUnavailable('down', 'the transaction of a group commit ended before its COMMIT');
        }
        await connection.executeQuery(raw('commit'));
      } catch (err) {
        this.rollbackGroup(group, err);
        throw err;
      }
      group.resolve();
    } finally {
      await this.releaseConnection();
    }
  }

  releaseConnection(): Promise<void> {
    return this.inner.releaseConnection();
  }

  /** Commits what is open, then closes; a failed COMMIT is thrown, after closing, not swallowed. */
  async destroy(): Promise<void> {
    try {
      await this.flush();
    } finally {
      await this.inner.destroy();
    }
  }
}

/** Kysely's SQLite dialect with the group-commit driver: its adapter, compiler and introspector. */
export class GroupCommitDialect implements Dialect {
  constructor(private readonly driver: GroupCommitDriver) {}
  createDriver(): Driver {
    return this.driver;
  }
  createAdapter(): SqliteAdapter {
    return new SqliteAdapter();
  }
  createQueryCompiler(): SqliteQueryCompiler {
    return new SqliteQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>): SqliteIntrospector {
    return new SqliteIntrospector(db);
  }
}
