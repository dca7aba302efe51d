import type { CustomerTable } from '../../db/tables/customer.ts';
import { sameJson } from '../../lib/canonical-json.ts';
import type { ListLinkState, TagLinkState } from '../customers/membership.repo.ts';
import type { Change, ChangeAction, FieldMap } from './change.model.ts';

/**
 * What undoing a key's changes to one customer does (DECISIONS "Change log and undo"), as
 * a pure function of the customer's state and its change log, so the dry run and the real
 * run decide alike. The key's changes are taken newest first. A field (or a membership,
 * or the customer's existence) goes back only while nothing after the change touched it
 * except the key's own changes that were themselves undone; and only while it still holds
 * what the key wrote (a write that bypassed the log is respected too).
 */
export interface CustomerState {
  row: CustomerTable;
  tags: Map<string, TagLinkState>;
  lists: Map<string, ListLinkState>;
}

/**
 * `changed_since`: a later change by someone else (or, `by: "unlogged"`, a write the log
 * does not hold) touched it; `later_change_kept`: a later change by the same key, itself
 * not undone (it was skipped), touched it.
 */
export type SkipReason =
  | 'changed_since'
  | 'later_change_kept'
  | 'value_differs'
  | 'customer_deleted'
  | 'not_deleted'
  | 'email_taken';

export interface Skip {
  change: string;
  action: ChangeAction;
  customer: string;
  field?: string;
  reason: SkipReason;
  /** Who made the later change, for `changed_since`; "unlogged" when the log has none. */
  by?: string;
}

export interface RevertOp {
  change: Change;
  action: ChangeAction;
  /** Field -> value now, and field -> the value it goes back to. */
  before: FieldMap;
  after: FieldMap;
}

export interface UndoPlanInput {
  keyId: string;
  state: CustomerState;
  /** The key's changes to this customer not yet undone, newest first. */
  pending: Change[];
  /** Every change to the customer after the oldest pending one, oldest first. */
  history: Change[];
  /** For each change that a history row reverts: the key that made it (null: not a key). */
  revertedKeyOf: Map<string, string | null>;
  /** Whether another live customer holds this email now. */
  emailTaken(email: string): Promise<boolean>;
  /** When the undo runs: a customer it deletes is deleted at this instant. */
  now: number;
}

export interface UndoPlan {
  ops: RevertOp[];
  outcomes: Map<string, 'reverted' | 'partial' | 'skipped'>;
  skipped: Skip[];
}

const EVERYTHING = '*';
const INVERSE: Record<ChangeAction, ChangeAction> = {
  'customer.create': 'customer.delete',
  'customer.delete': 'customer.restore',
  'customer.restore': 'customer.delete',
  'customer.update': 'customer.update',
  'customer.tag_add': 'customer.tag_remove',
  'customer.tag_remove': 'customer.tag_add',
  'customer.list_add': 'customer.list_remove',
  'customer.list_remove': 'customer.list_add',
};

/** The fields a change touched; creation and deletion touch the whole customer. */
function touched(change: Change): string[] {
  if (
    change.action === 'customer.create' ||
    change.action === 'customer.delete' ||
    change.action === 'customer.restore'
  ) {
    return [EVERYTHING];
  }
  return Object.keys(change.after ?? {});
}

function readField(state: CustomerState, field: string): unknown {
  if (field.startsWith('tag:')) return state.tags.get(field.slice(4)) ?? null;
  if (field.startsWith('list:')) return state.lists.get(field.slice(5)) ?? null;
  return state.row[field as keyof CustomerTable];
}

function writeField(state: CustomerState, field: string, value: unknown): void {
  const set = <V>(map: Map<string, V>, id: string) => (value === null ? map.delete(id) : map.set(id, value as V));
  if (field.startsWith('tag:')) set(state.tags, field.slice(4));
  else if (field.startsWith('list:')) set(state.lists, field.slice(5));
  else (state.row as unknown as Record<string, unknown>)[field] = value;
}

/** Who wrote without logging, as `by` names it: nobody the log knows. */
export const UNLOGGED = 'unlogged';

/**
 * Every write moves the version on by one and logs the version it gave: a customer now past
 * the newest version logged was changed by something that wrote no log row, whose change
 * nothing here can see, so none of the key's changes to it is reverted.
 */
function unloggedWrite(input: UndoPlanInput): boolean {
  const logged = Math.max(
    ...input.pending.map((c) => c.customer_version),
    ...input.history.map((h) => h.customer_version),
  );
  return input.state.row.version > logged;
}

export async function planCustomerUndo(input: UndoPlanInput): Promise<UndoPlan> {
  const { keyId, state, pending, history } = input;
  const plan: UndoPlan = { ops: [], outcomes: new Map(), skipped: [] };
  // Fields of the key's changes that are back where they were: in earlier runs (the
  // fields of the rows that revert them) and in this one.
  const undone = new Map<string, Set<string>>();
  const undoneOf = (id: string) => undone.get(id) ?? undone.set(id, new Set()).get(id)!;
  for (const h of history) {
    if (h.reverts) for (const f of touched(h)) undoneOf(h.reverts).add(f);
  }
  /** The first later change, not undone, that touched `field`: who blocks going back. */
  const blocker = (change: Change, field: string): Change | undefined =>
    history.find((h) => {
      if (h.customer_version <= change.customer_version) return false;
      if (h.reverts && input.revertedKeyOf.get(h.reverts) === keyId) return false; // undoing this key
      const fields = touched(h);
      if (!fields.includes(EVERYTHING) && field !== EVERYTHING && !fields.includes(field)) return false;
      if (h.key_id !== keyId) return true;
      // The key's own later change blocks only where it still stands: for one field, when
      // that field of it was not put back (it may have been, though others were kept);
      // for the whole customer, when any of its fields was kept.
      const back = undone.get(h.id);
      if (!back) return true;
      if (back.has(EVERYTHING)) return false;
      return field === EVERYTHING || fields.includes(EVERYTHING) ? !fields.every((f) => back.has(f)) : !back.has(field);
    });

  if (unloggedWrite(input)) {
    for (const change of pending) {
      plan.skipped.push({
        change: change.id,
        action: change.action,
        customer: change.object_id,
        reason: 'changed_since',
        by: UNLOGGED,
      });
      plan.outcomes.set(change.id, 'skipped');
    }
    return plan;
  }

  for (const change of pending) {
    const skip = (reason: SkipReason, field?: string, by?: Change) =>
      plan.skipped.push({
        change: change.id,
        action: change.action,
        customer: change.object_id,
        ...(field ? { field } : {}),
        reason,
        ...(by ? { by: by.actor_id } : {}),
      });
    // The key's own later change that was kept is not "someone else" (DECISIONS "Change log and undo").
    const blocked = (by: Change, field?: string) =>
      by.key_id === keyId ? skip('later_change_kept', field) : skip('changed_since', field, by);
    const before: FieldMap = {};
    const after: FieldMap = {};
    const fields = touched(change);
    const whole = fields.includes(EVERYTHING);
    const blockedBy = whole ? blocker(change, EVERYTHING) : undefined;
    if (blockedBy) blocked(blockedBy);
    else if (change.action === 'customer.create') {
      if (state.row.deleted_at !== null) skip('customer_deleted');
      else after.deleted_at = input.now;
    } else if (change.action === 'customer.delete') {
      if (state.row.deleted_at === null) skip('not_deleted');
      else if (state.row.email && (await input.emailTaken(state.row.email))) skip('email_taken', 'email');
      else after.deleted_at = null;
    } else if (state.row.deleted_at !== null) skip('customer_deleted');
    else {
      for (const field of fields) {
        const by = blocker(change, field);
        if (by) blocked(by, field);
        else if (!sameJson(readField(state, field), change.after?.[field])) skip('value_differs', field);
        else after[field] = change.before?.[field] ?? null;
      }
    }
    const reverted = Object.keys(after);
    if (reverted.length === 0) {
      plan.outcomes.set(change.id, 'skipped');
      continue;
    }
    for (const f of reverted) before[f] = readField(state, f);
    for (const f of reverted) writeField(state, f, after[f]);
    for (const f of whole ? [EVERYTHING] : reverted) undoneOf(change.id).add(f);
    plan.ops.push({ change, action: INVERSE[change.action], before, after });
    plan.outcomes.set(change.id, reverted.length === fields.length || whole ? 'reverted' : 'partial');
  }
  return plan;
}
