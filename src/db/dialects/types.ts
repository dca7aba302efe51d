import type { Dialect, Expression, Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import type { Database } from '../schema.ts';

/** What differs between the engines lives behind this interface, one file per engine. */
export interface Engine {
  readonly name: 'sqlite' | 'postgres';
  readonly dialect: Dialect;
  /**
   * Asked inside a transaction: resolves once that transaction is durable, rejects when it
   * will never be. SQLite commits the write transactions that run together as one group
   * (sqlite-group-commit.ts), so a finished transaction still waits for its group's COMMIT;
   * PostgreSQL's COMMIT has returned by then. Only the write path (src/db/write.ts) asks.
   */
  durable(): Promise<void>;
  /**
   * Run `fn` only if no other process is running the job named `lock` right now;
   * answers false (without running) when another holds it. SQLite serves one process.
   */
  withJobLock<T>(db: Kysely<Database>, lock: string, fn: () => Promise<T>): Promise<{ ran: boolean; value?: T }>;
  /**
   * Whether INSERTs may sit in a WITH, several in one statement: PostgreSQL's data-modifying
   * WITH saves a round trip each; SQLite has no such WITH, and no round trips to save.
   */
  readonly insertsInWith: boolean;
  /** The connection pool's clients (PostgreSQL, pg.Pool's own counts) for /metrics; SQLite has one connection and none. */
  connections(): { inUse: number; idle: number; waiting: number } | null;
  /** SQLite: the size of the database's write-ahead log now (bytes); null on PostgreSQL and in memory. */
  walBytes(): number | null;
  /** Rows a multi-row INSERT may carry, given its column count (bound-parameter limits). */
  maxInsertRows(columns: number): number;
  /**
   * Inside a transaction of a bulk writer (seed, import): stops the membership-count
   * triggers for the rest of it, so the writer sets customers' tag_count and list_count
   * itself, set-wise (migration 010); answers false where they keep counting (SQLite, whose
   * per-row triggers cost little), and the writer must then leave the counts to them.
   */
  pauseMembershipCounts(tx: Kysely<Database>): Promise<boolean>;
  /**
   * Bring the planner's statistics up to date after bulk loads and from time to time.
   * Without them SQLite picks the wrong index on large tables (a whole-range sort instead
   * of a filter index); PostgreSQL's autovacuum keeps its own, so there it does nothing.
   */
  refreshStatistics(db: Kysely<Database>): Promise<void>;
  /**
   * The larger of two numbers, as SQL: SQLite spells it `max(a, b)` (two arguments make it a
   * scalar function), PostgreSQL `greatest(a, b)`.
   */
  greatest<T extends number>(a: Expression<T>, b: Expression<T>): RawBuilder<T>;
  /**
   * A select inside a write transaction that claims the rows it picks (a job queue's due
   * rows): PostgreSQL locks them `FOR UPDATE SKIP LOCKED`, so processes claiming at once get
   * different rows and none waits for another's; SQLite gives the query back unchanged, since
   * its write transactions already run one at a time (BEGIN IMMEDIATE), across processes too.
   */
  claimRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
}
