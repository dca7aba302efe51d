import type { Transaction } from 'kysely';
import type { Database, Queryable } from '../../db/schema.ts';
import { toChange, type Change } from './change.model.ts';

/**
 * Undo's queries of the change log: a key's changes not yet undone, what came after them,
 * which key made them, and the mark an undo leaves on each.
 */

/** A key's changes not yet undone: what an undo has left to do, the one definition of pending. */
function notUndone(db: Queryable, keyId: string) {
  return db.selectFrom('change_log').where('key_id', '=', keyId).where('undone_at', 'is', null);
}

/** A customer's changes after `version`, oldest first. */
export async function changesAfter(db: Queryable, customerId: string, version: number): Promise<Change[]> {
  const rows = await db
    .selectFrom('change_log')
    .selectAll()
    .where('object_id', '=', customerId)
    .where('customer_version', '>', version)
    .orderBy('customer_version')
    .execute();
  return rows.map(toChange);
}

/** The customers a key changed whose changes are not all undone, most recently changed first. */
export async function customersChangedBy(db: Queryable, keyId: string): Promise<string[]> {
  const rows = await notUndone(db, keyId)
    .select(['object_id', (eb) => eb.fn.max('at').as('last')])
    .groupBy('object_id')
    .orderBy('last', 'desc')
    .execute();
  return rows.map((r) => r.object_id);
}

/** A key's changes to one customer not yet undone (made at or before `until` when given), newest first. */
export async function pendingChanges(
  db: Queryable,
  keyId: string,
  customerId: string,
  until?: number,
): Promise<Change[]> {
  let query = notUndone(db, keyId).selectAll().where('object_id', '=', customerId);
  if (until !== undefined) query = query.where('at', '<=', until);
  const rows = await query.orderBy('customer_version', 'desc').execute();
  return rows.map(toChange);
}

/**
 * The customers of a key's newest `limit` changes not yet undone and made at or before
 * `until`, most recently changed first: an undo job's next batch. Once a batch has undone
 * them, their changes are marked, so the next call starts where it stopped.
 */
export async function nextCustomersToUndo(
  db: Queryable,
  keyId: string,
  until: number,
  limit: number,
): Promise<string[]> {
  const rows = await notUndone(db, keyId)
    .select('object_id')
    .where('at', '<=', until)
    .orderBy('at', 'desc')
    .orderBy('customer_version', 'desc')
    .limit(limit)
    .execute();
  return [...new Set(rows.map((r) => r.object_id))];
}

/** Change id -> the key that made it (null: not a key), for the ids given. */
export async function keysOfChanges(db: Queryable, ids: string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  if (ids.length === 0) return out;
  const rows = await db.selectFrom('change_log').select(['id', 'key_id']).where('id', 'in', ids).execute();
  for (const r of rows) out.set(r.id, r.key_id);
  return out;
}

/** Marks a change as looked at by an undo; false when another undo marked it first. */
export async function markUndone(
  tx: Transaction<Database>,
  id: string,
  at: number,
  outcome: 'reverted' | 'partial' | 'skipped',
): Promise<boolean> {
  const marked = await tx
    .updateTable('change_log')
    .set({ undone_at: at, undo_outcome: outcome })
    .where('id', '=', id)
    .where('undone_at', 'is', null)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}

/**
 * One page of a key's changes not yet undone, newest first (the undo preview): read from the
 * key's (key_id, undone_at, at) index, so a page does not sort the key's whole log.
 */
export async function pendingPage(
  db: Queryable,
  keyId: string,
  page: { offset: number; limit: number },
): Promise<Change[]> {
  const rows = await notUndone(db, keyId)
    .selectAll()
    .orderBy('at', 'desc')
    .orderBy('customer_version', 'desc')
    .orderBy('id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  return rows.map(toChange);
}

/** How many of a key's changes are not yet undone, made at or before `until` when given. */
export async function countPending(db: Queryable, keyId: string, until?: number): Promise<number> {
  let query = notUndone(db, keyId).select((eb) => eb.fn.countAll<number | string>().as('n'));
  if (until !== undefined) query = query.where('at', '<=', until);
  return Number((await query.executeTakeFirstOrThrow()).n);
}
