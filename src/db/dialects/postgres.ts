import {
  PostgresDialect,
  sql,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
} from 'kysely';
import pg from 'pg';
import { lockKey } from '../transaction-lock.ts';
import { DatabaseUnavailable, unavailableReason, type UnavailableReason } from '../unavailable.ts';
import { isStalePlan, PREPARED_PER_CONNECTION, StatementNames } from './pg-statements.ts';
import type { Engine } from './types.ts';

// int8 (bigint) columns hold millisecond instants, well inside the safe-integer range.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface PostgresOptions {
  /** Clients in the pool. */
  poolSize?: number;
  /** Connecting, and waiting for a free client of the pool (ms); unset: no bound. */
  connectTimeoutMs?: number;
  /**
   * The server cancels a statement that runs longer (statement_timeout, ms), and a session
   * idle inside a transaction that long; the client stops waiting for an answer
   * READ_TIMEOUT_SLACK_MS later (a peer silent on the network). Unset or 0: no bound.
   */
  statementTimeoutMs?: number;
  /** The server gives up a wait for a lock that takes longer (lock_timeout, ms); unset or 0: no bound. */
  lockTimeoutMs?: number;
  /** TCP keep-alive: a connection idle this long (ms) is probed, so a peer that vanished is noticed; unset: the system's wait. */
  keepAliveMs?: number;
  /** Named statements a connection keeps before it is replaced (pg-statements.ts); PREPARED_PER_CONNECTION when unset. */
  preparedPerConnection?: number;
  /** Told of each connection the server or the network dropped; the pool discards it either way. */
  onConnectionError?: (err: Error) => void;
}

/** How much longer than the statement timeout the client waits: the server's own cancel answers first. */
const READ_TIMEOUT_SLACK_MS = 1_000;

/**
 * pg and pg-pool's failures that carry no code, by their messages (all they have), so the
 * edge answers 503 rather than 500 (db/unavailable.ts). "Query read timeout" is a peer that
 * stopped answering: the statement may have run, so it counts as down, not a timeout.
 */
const CODELESS: readonly (readonly [RegExp, UnavailableReason])[] = [
  [/^timeout exceeded when trying to connect$/, 'timeout'],
  [/^timeout expired$/, 'down'],
  [/^Connection terminated/, 'down'],
  [/^Query read timeout$/, 'down'],
  [/is not queryable$/, 'down'],
  [/^Cannot use a pool after calling end on the pool$/, 'down'],
];

function classified(err: unknown): unknown {
  if (!(err instanceof Error) || unavailableReason(err) !== null) return err;
  if ((err as { code?: unknown }).code !== undefined) return err;
  const reason = CODELESS.find(([pattern]) => pattern.test(err.message))?.[1];
  return reason ? new DatabaseUnavailable(reason, err.message, { cause: err }) : err;
}

/** Kysely opens and ends its transactions with statements of their own, without parameters. */
function transactionControl(text: string): 'begin' | 'end' | null {
  const head = text.trimStart().slice(0, 8).toLowerCase();
  if (head.startsWith('begin') || head.startsWith('start')) return 'begin';
  if (head.startsWith('commit') || head.startsWith('rollback')) return 'end';
  return null;
}

/**
 * A checked-out client as Kysely sees it. Every statement with parameters (all the shapes
 * the API runs) goes as a named statement, so PostgreSQL parses and plans each shape once
 * per connection rather than on every request; a statement without parameters (transaction
 * control, a migration's DDL, which may hold several statements) or too long (pg-statements.ts)
 * goes as it is. One lives as long as its connection (and Kysely's own wrapper of it, which
 * it keys by this object), as does the record of the names it has used. Once its connection
 * has failed, it sends nothing more (Kysely's ROLLBACK would wait out the read timeout
 * again); its release then tells the pool to discard it, so the next request connects anew,
 * as it does for a connection that has used up its names (pg-statements.ts).
 */
class GuardedClient implements PostgresPoolClient {
  private lost: unknown = null;
  private inTransaction = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: StatementNames,
  ) {}

  /** Taken from the pool: a clean state. */
  checkedOut(): void {
    this.lost = null;
    this.inTransaction = false;
  }

  query<R>(sqlText: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlText: string | PostgresCursor<R>,
    parameters: ReadonlyArray<unknown> = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // The dialect configures no cursor, so Kysely never streams: only statements come here.
    if (typeof sqlText !== 'string') throw new Error('streaming queries are not configured');
    return this.send<R>(sqlText, parameters);
  }

  private async send<R>(text: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
    if (this.lost) throw this.lost;
    const name = this.names.nameFor(text, parameters.length);
    if (name === undefined) {
      const control = transactionControl(text);
      if (control !== null) this.inTransaction = control === 'begin';
    }
    try {
      return await this.run<R>(text, name, parameters);
    } catch (err) {
      if (name === undefined || !isStalePlan(err)) throw err;
      this.names.retire();
      // Outside a transaction nothing was done and the statement can go again, parsed anew;
      // inside one the transaction is aborted, and the caller may retry it (a 503).
      if (!this.inTransaction) return this.run<R>(text, undefined, parameters);
      throw new DatabaseUnavailable('busy', (err as Error).message, { cause: err });
    }
  }

  private async run<R>(
    text: string,
    name: string | undefined,
    parameters: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> {
    try {
      const result = await this.client.query({ name, text, values: [...parameters] });
      return result as unknown as PostgresQueryResult<R>;
    } catch (err) {
      if (isStalePlan(err)) throw err;
      const mapped = classified(err);
      if (unavailableReason(mapped) === 'down') this.lost = mapped;
      throw mapped;
    }
  }

  release(): void {
    this.client.release(this.lost ? (this.lost as Error) : this.names.retired);
  }
}

class GuardedPool implements PostgresPool {
  private readonly guarded = new WeakMap<pg.PoolClient, GuardedClient>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly preparedPerConnection: number,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw classified(err);
    }
    let guarded = this.guarded.get(client);
    if (!guarded) {
      guarded = new GuardedClient(client, new StatementNames(this.preparedPerConnection));
      this.guarded.set(client, guarded);
    }
    guarded.checkedOut();
    return guarded;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

export function createPostgresEngine(url: string, options: PostgresOptions = {}): Engine {
  const statementMs = options.statementTimeoutMs || undefined;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: options.keepAliveMs,
    // Sent with the startup message: every session starts with them, at no extra round trip.
    statement_timeout: statementMs,
    idle_in_transaction_session_timeout: statementMs,
    // Not sent: how long the client waits for any answer before it gives the connection up.
    query_timeout: statementMs && statementMs + READ_TIMEOUT_SLACK_MS,
    lock_timeout: options.lockTimeoutMs || undefined,
  });
  // A connection the server or the network drops (restart, pg_terminate_backend) emits
  // 'error' on its client, checked out or idle; unheard, that event would end the process.
  pool.on('connect', (client) => client.on('error', (err) => options.onConnectionError?.(err)));
  // An idle client's error is told again on the pool, once the pool has discarded it.
  pool.on('error', () => undefined);
  return {
    name: 'postgres',
    insertsInWith: true,
    walBytes: () => null,
    connections: () => ({
      inUse: pool.totalCount - pool.idleCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    dialect: new PostgresDialect({
      pool: new GuardedPool(pool, options.preparedPerConnection ?? PREPARED_PER_CONNECTION),
    }),
    // Every COMMIT is durable when it returns (PostgreSQL groups the fsyncs of concurrent commits itself).
    durable: () => Promise.resolve(),
    // A session advisory lock on one pinned connection: several processes, one runner.
    async withJobLock(db, lock, fn) {
      return db.connection().execute(async (conn) => {
        const key = lockKey(lock);
        const got = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${key}) as ok`.execute(conn);
        if (!got.rows[0]?.ok) return { ran: false };
        try {
          return { ran: true, value: await fn() };
        } finally {
          await sql`select pg_advisory_unlock(${key})`.execute(conn);
        }
      });
    },
    maxInsertRows: (columns) => Math.max(1, Math.floor(60_000 / columns)),
    async pauseMembershipCounts(tx) {
      await sql`select set_config('venue.membership_counts', 'off', true)`.execute(tx);
      return true;
    },
    // ANALYZE samples a bounded number of rows per table, so it stays cheap at any size; but
    // not always within a request's statement timeout, so it runs on a connection of its own,
    // outside the pool and without its timeouts.
    refreshStatistics: async () => {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMs });
      // A connection dropped meanwhile fails the query; unheard, its 'error' would end the process.
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('analyze');
      } finally {
        await client.end();
      }
    },
    greatest: (a, b) => sql`greatest(${a}, ${b})`,
    claimRows: (query) => query.forUpdate().skipLocked(),
  };
}
