import { createHash } from 'node:crypto';
import { PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Engine, JsonSql } from './types.ts';

// int8 (bigint) columns hold millisecond instants, well inside the safe-integer range.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

function lockKey(name: string): bigint {
  return createHash('sha256').update(name).digest().readBigInt64BE(0);
}

/**
 * PostgreSQL's json (not jsonb, which reorders keys) constructors. to_timestamp keeps
 * microseconds, so the milliseconds of a millisecond instant come through exactly.
 */
const postgresJson: JsonSql = {
  object: (pairs) => sql`json_build_object(${sql.join(pairs.flatMap(([k, v]) => [sql.lit(k), v]))})`,
  bool: (condition) => sql`(${condition})`,
  instant: (ms) =>
    sql<string | null>`to_char(to_timestamp(${ms} / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  arrayAgg: (value, orderBy) => sql`coalesce(json_agg(${value} order by ${sql.join(orderBy)}), '[]'::json)`,
  emptyArray: () => sql`'[]'::json`,
};

export function createPostgresEngine(url: string, poolSize = 10): Engine {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle connection the server drops (restart, failover) must not crash the process:
  // the pool discards it and the next query connects anew; /ready reports an outage.
  pool.on('error', () => undefined);
  return {
    name: 'postgres',
    dialect: new PostgresDialect({ pool }),
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
    // Released by commit or rollback, and by the server when a crashed process's connection drops.
    async tryTransactionLock(tx, name) {
      const got = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${lockKey(name)}) as ok`.execute(tx);
      return got.rows[0]?.ok === true;
    },
    // ANALYZE samples a bounded number of rows per table, so it stays cheap at any size.
    refreshStatistics: async (db) => {
      await sql`analyze`.execute(db);
    },
    greatest: (a, b) => sql`greatest(${a}, ${b})`,
    json: postgresJson,
  };
}
