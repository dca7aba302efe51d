import type { Transaction } from 'kysely';
import type { ChangeLogTable, Database, Queryable, Tx } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../actor.model.ts';
import { preparedInsert } from '../../db/prepared.ts';

/**
 * The change log (DECISIONS "Change log and undo"): every change to a customer, its tags
 * or its lists, in the transaction that made it. Fields are named by column, memberships
 * as `tag:<tag id>` and `list:<list id>`; a value of null there means "not a member".
 */
export type ChangeAction =
  | 'customer.create'
  | 'customer.update'
  | 'customer.delete'
  | 'customer.restore'
  | 'customer.tag_add'
  | 'customer.tag_remove'
  | 'customer.list_add'
  | 'customer.list_remove';

export type FieldMap = Record<string, unknown>;

export interface ChangeInput {
  /** When it was made: the instant the write stamped on the customer. */
  at: number;
  action: ChangeAction;
  customerId: string;
  /** The customer's version after this change. */
  version: number;
  before: FieldMap | null;
  after: FieldMap | null;
  /** The change this one undoes. */
  reverts?: string;
  /** The key that made the change this one undoes (null: not a key). */
  revertsKey?: string | null;
}

export interface Change extends Omit<ChangeLogTable, 'before' | 'after' | 'action'> {
  action: ChangeAction;
  before: FieldMap | null;
  after: FieldMap | null;
}

/** Who made a change, as the log records it. */
export type ChangeAuthor = Pick<Actor, 'kind' | 'id' | 'workspaceId' | 'livemode' | 'requestId'>;

/** The row a change is stored as. */
export function changeRow(author: ChangeAuthor, change: ChangeInput): ChangeLogTable {
  return {
    id: newId('change'),
    workspace_id: author.workspaceId,
    livemode: author.livemode ? 1 : 0,
    at: change.at,
    actor_kind: author.kind,
    actor_id: author.id,
    key_id: author.kind === 'key' ? author.id : null,
    request_id: author.requestId,
    action: change.action,
    object: 'customer',
    object_id: change.customerId,
    customer_version: change.version,
    before: change.before === null ? null : JSON.stringify(change.before),
    after: change.after === null ? null : JSON.stringify(change.after),
    reverts: change.reverts ?? null,
    reverts_key_id: change.reverts === undefined ? null : (change.revertsKey ?? ''),
    undone_at: null,
    undo_outcome: null,
  };
}

const INSERT_ONE = preparedInsert('change_log');

/** Writes change rows inside the transaction that made the changes (`perInsert` rows a statement). */
export async function insertChangeRows(
  tx: Transaction<Database>,
  rows: ChangeLogTable[],
  perInsert = 500,
): Promise<void> {
  // One row (a request's write) goes through a statement compiled once; batches as one INSERT each.
  if (rows.length === 1) {
    await INSERT_ONE(tx, rows[0]!);
    return;
  }
  for (let i = 0; i < rows.length; i += perInsert)
    await tx
      .insertInto('change_log')
      .values(rows.slice(i, i + perInsert))
      .execute();
}

export function toChange(row: ChangeLogTable): Change {
  return {
    ...row,
    action: row.action as ChangeAction,
    before: row.before === null ? null : (JSON.parse(row.before) as FieldMap),
    after: row.after === null ? null : (JSON.parse(row.after) as FieldMap),
  };
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

/** Changes by a key, newest first (tests and the console read the log this way). */
export async function changesByKey(db: Queryable, keyId: string): Promise<Change[]> {
  const rows = await db
    .selectFrom('change_log')
    .selectAll()
    .where('key_id', '=', keyId)
    .orderBy('at', 'desc')
    .orderBy('customer_version', 'desc')
    .execute();
  return rows.map(toChange);
}

/** One batch of the changes older than `before` (DECISIONS: kept 365 days, then purged). */
export async function deleteChangesBefore(tx: Tx, before: number, limit: number): Promise<number> {
  const result = await tx
    .deleteFrom('change_log')
    .where('id', 'in', (eb) => eb.selectFrom('change_log').select('id').where('at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The customers a key changed whose changes are not all undone, most recently changed first. */
export async function customersChangedBy(db: Queryable, keyId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('change_log')
    .select(['object_id', (eb) => eb.fn.max('at').as('last')])
    .where('key_id', '=', keyId)
    .where('undone_at', 'is', null)
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
  let query = db
    .selectFrom('change_log')
    .selectAll()
    .where('key_id', '=', keyId)
    .where('object_id', '=', customerId)
    .where('undone_at', 'is', null);
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
  const rows = await db
    .selectFrom('change_log')
    .select('object_id')
    .where('key_id', '=', keyId)
    .where('undone_at', 'is', null)
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

type LogKey = { at: number; customer_version: number; id: string };

/** Newest first: the log's page order. */
const newestFirst = (a: LogKey, b: LogKey) =>
  Number(b.at) - Number(a.at) || b.customer_version - a.customer_version || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** A key's log is counted up to this many rows; past it the page says "more than". */
export const KEY_LOG_COUNTED = 10_000;

/**
 * One page of a key's log, newest first: the key's own changes and the undos of them
 * (recorded as the person's changes, pointing at the change they revert). Both are one range
 * of the (coalesce(key_id, reverts_key_id), at, version, id) index. The range is counted up
 * to KEY_LOG_COUNTED rows, so a key with a long log is never counted whole (`total` null:
 * more than that). A page's ids are read from the index, from the newest end or, for a page
 * in the older half of a counted log, from the oldest, and then its rows by id, so a page
 * reads no table row but its own. Undo rows a server older than 017-change-log-undo-index
 * wrote name no key; the few there are (only while both versions serve) are found from their
 * partial index and merged in.
 */
export async function keyLogPage(
  db: Queryable,
  keyId: string,
  page: { offset: number; limit: number },
): Promise<{ changes: Change[]; total: number | null; older: boolean }> {
  const ofKey = db.selectFrom('change_log').where((eb) => eb(eb.fn.coalesce('key_id', 'reverts_key_id'), '=', keyId));
  const [counted, unfilled] = await Promise.all([
    db
      .selectFrom(
        ofKey
          .select('id')
          .limit(KEY_LOG_COUNTED + 1)
          .as('r'),
      )
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('change_log')
      .select(['at', 'customer_version', 'id'])
      .where('reverts', 'is not', null)
      .where('reverts_key_id', 'is', null)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('change_log as c')
            .select('c.id')
            .whereRef('c.id', '=', 'change_log.reverts')
            .where('c.key_id', '=', keyId),
        ),
      )
      .execute(),
  ]);
  const indexed = Number(counted.n);
  const total = indexed > KEY_LOG_COUNTED ? null : indexed + unfilled.length;

  const range = (dir: 'asc' | 'desc', offset: number, limit: number) =>
    ofKey
      .select(['at', 'customer_version', 'id'])
      .orderBy('at', dir)
      .orderBy('customer_version', dir)
      .orderBy('id', dir)
      .offset(offset)
      .limit(limit)
      .execute();
  // One row past the page when the log is not counted whole: whether there is an older page.
  const end = total === null ? page.offset + page.limit + 1 : Math.min(page.offset + page.limit, total);
  let picked: LogKey[] = [];
  if (page.offset >= end) picked = [];
  else if (unfilled.length > 0) {
    // The index's rows down to the page's end, merged with the unfilled ones.
    picked = [...(await range('desc', 0, end)), ...unfilled].sort(newestFirst).slice(page.offset, end);
  } else if (total !== null && page.offset > total - end) {
    picked = (await range('asc', total - end, end - page.offset)).reverse();
  } else {
    picked = await range('desc', page.offset, end - page.offset);
  }
  const older = total === null ? picked.length > page.limit : page.offset + page.limit < total;
  picked = picked.slice(0, page.limit);
  if (picked.length === 0) return { changes: [], total, older };
  const rows = await db
    .selectFrom('change_log')
    .selectAll()
    .where(
      'id',
      'in',
      picked.map((p) => p.id),
    )
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { changes: picked.flatMap((p) => (byId.has(p.id) ? [toChange(byId.get(p.id)!)] : [])), total, older };
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
  const rows = await db
    .selectFrom('change_log')
    .selectAll()
    .where('key_id', '=', keyId)
    .where('undone_at', 'is', null)
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
  let query = db
    .selectFrom('change_log')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('key_id', '=', keyId)
    .where('undone_at', 'is', null);
  if (until !== undefined) query = query.where('at', '<=', until);
  return Number((await query.executeTakeFirstOrThrow()).n);
}
