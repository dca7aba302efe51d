import { createHash } from 'node:crypto';
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { jsonDialectOf } from './json-record.ts';
import type { Queryable, Tx } from './schema.ts';

/** The 64-bit key PostgreSQL's advisory locks take, from a lock's name (as decimal text). */
export function lockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

/** Whether every transaction lock is free to take (SQLite, see below): a writer may skip taking it. */
export function locksAreFree(db: Queryable): boolean {
  return jsonDialectOf(db) === 'sqlite';
}

/**
 * As SQL, evaluated inside a write transaction: true once the transaction holds the lock
 * `key` (lockKey) until it ends, false at once when another transaction holds it, so a part
 * of a larger statement. PostgreSQL: a transaction advisory lock, released by COMMIT or
 * ROLLBACK, and by the server when a crashed process's connection drops. SQLite: always
 * true, as a group's BEGIN IMMEDIATE already makes each write transaction the only one,
 * across processes.
 */
export function tryTransactionLock(db: Queryable, key: Expression<string> | string): RawBuilder<boolean> {
  if (locksAreFree(db)) return sql<boolean>`1`;
  return sql<boolean>`pg_try_advisory_xact_lock(cast(${key} as bigint))`;
}

/**
 * Waits inside a write transaction until it holds the lock `name` (lockKey), until it ends:
 * for a count that must see every other writer's rows before it decides, which PostgreSQL's
 * READ COMMITTED does not show while they are uncommitted. PostgreSQL: a transaction advisory
 * lock; SQLite: nothing to wait for (BEGIN IMMEDIATE, as above). Take several in one fixed
 * order everywhere, so no two transactions wait on each other.
 */
export async function holdTransactionLock(tx: Tx, name: string): Promise<void> {
  if (locksAreFree(tx)) return;
  await sql`select pg_advisory_xact_lock(cast(${lockKey(name)} as bigint))`.execute(tx);
}

/**
 * A select inside a write transaction that holds the rows it reads until the transaction
 * ends: FOR UPDATE on PostgreSQL; unchanged on SQLite, whose write transaction already holds
 * the whole database (BEGIN IMMEDIATE).
 */
export function lockRows<DB, TB extends keyof DB, O>(
  db: Queryable,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return locksAreFree(db) ? query : query.forUpdate();
}
