import type { ChangeLogTable } from '../../db/tables/change.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor } from '../actor.model.ts';

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

export function toChange(row: ChangeLogTable): Change {
  return {
    ...row,
    action: row.action as ChangeAction,
    before: row.before === null ? null : (JSON.parse(row.before) as FieldMap),
    after: row.after === null ? null : (JSON.parse(row.after) as FieldMap),
  };
}

/**
 * Customers as GET shows them (unmasked JSON, the API's read path inside the write's
 * transaction), by id, as a write has them at hand: just before it changed an existing
 * customer, and just after (its answer). An event reads what it is not handed. A statement
 * that writes its event itself hands where the record and the changed members go instead.
 */
export type CustomerRecords = ReadonlyMap<string, { before?: string; after?: string; previous?: string }>;
