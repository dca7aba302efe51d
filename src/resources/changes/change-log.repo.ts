import type { ChangeLogTable, Queryable } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import type { WriteScope } from '../customers/write-scope.ts';

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
  action: ChangeAction;
  customerId: string;
  /** The customer's version after this change. */
  version: number;
  before: FieldMap | null;
  after: FieldMap | null;
  /** The change this one undoes. */
  reverts?: string;
}

export interface Change extends Omit<ChangeLogTable, 'before' | 'after' | 'action'> {
  action: ChangeAction;
  before: FieldMap | null;
  after: FieldMap | null;
}

/** The row a change is stored as; `recordChange` writes one, a bulk writer (the import) many. */
export function changeRow(scope: Omit<WriteScope, 'clock'>, at: number, change: ChangeInput): ChangeLogTable {
  return {
    id: newId('change'),
    workspace_id: scope.workspaceId,
    livemode: scope.livemode ? 1 : 0,
    at,
    actor_kind: scope.actor.kind,
    actor_id: scope.actor.id,
    key_id: scope.actor.kind === 'key' ? scope.actor.id : null,
    request_id: scope.requestId,
    action: change.action,
    object: 'customer',
    object_id: change.customerId,
    customer_version: change.version,
    before: change.before === null ? null : JSON.stringify(change.before),
    after: change.after === null ? null : JSON.stringify(change.after),
    reverts: change.reverts ?? null,
    undone_at: null,
    undo_outcome: null,
  };
}

export async function recordChange(tx: Queryable, scope: WriteScope, at: number, change: ChangeInput): Promise<string> {
  const row = changeRow(scope, at, change);
  await tx.insertInto('change_log').values(row).execute();
  return row.id;
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

/** DECISIONS: kept 365 days, then purged. */
export async function purgeChanges(db: Queryable, before: number): Promise<number> {
  const result = await db.deleteFrom('change_log').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
