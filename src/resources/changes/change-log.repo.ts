import type { Transaction } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import { insertMany } from '../../db/insert-many.ts';
import { preparedInsert } from '../../db/prepared.ts';
import type { Database, Queryable, Tx } from '../../db/schema.ts';
import type { ChangeLogTable } from '../../db/tables/change.ts';
import { toChange, type Change } from './change.model.ts';

/** The change log's writes and yearly purge, and the read of a customer's membership adds. */

// A request's write inserts one row: compiled once (db/prepared.ts).
const INSERT_ONE = preparedInsert('change_log');

/** Writes change rows inside the transaction that made the changes (as many a statement as the engine allows). */
export async function insertChangeRows(
  tx: Transaction<Database>,
  engine: Pick<Engine, 'maxInsertRows'>,
  rows: ChangeLogTable[],
): Promise<void> {
  if (rows.length === 1) await INSERT_ONE(tx, rows[0]!);
  else await insertMany(tx, engine, 'change_log', rows);
}

/** One batch of the changes older than `before` (DECISIONS: kept 365 days, then purged). */
export async function deleteChangesBefore(tx: Tx, before: number, limit: number): Promise<number> {
  const result = await tx
    .deleteFrom('change_log')
    .where('id', 'in', (eb) => eb.selectFrom('change_log').select('id').where('at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The membership adds some keys made to a customer's tag or list, newest first. */
export async function membershipAddsBy(db: Queryable, customerId: string, keyIds: string[]): Promise<Change[]> {
  if (keyIds.length === 0) return [];
  const rows = await db
    .selectFrom('change_log')
    .selectAll()
    .where('object_id', '=', customerId)
    .where('action', 'in', ['customer.tag_add', 'customer.list_add'])
    .where('key_id', 'in', keyIds)
    .orderBy('customer_version', 'desc')
    .execute();
  return rows.map(toChange);
}
