import type { CustomerTable, Db, Queryable } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { runWrite, StaleWrite } from '../../db/write-tx.ts';
import { notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import type { Clock } from '../../lib/time.ts';
import {
  bumpCustomer,
  emailOwner,
  findCustomerRow,
  lockCustomer,
  setListLink,
  setTagLink,
  type ListLinkState,
  type TagLinkState,
} from '../customers/customer.write-repo.ts';
import type { Actor, WriteScope } from '../customers/write-scope.ts';
import { findKeyById } from '../keys/key.repo.ts';
import { changesAfter, recordChange, toChange, type Change } from './change-log.repo.ts';
import { planCustomerUndo, type CustomerState, type Skip, type UndoPlan } from './undo.plan.ts';

/**
 * Undo a key's changes (SPEC "What the service does", DECISIONS "Change log and undo"):
 * newest first, one customer per transaction, each revert a change of its own recorded as
 * made by whoever ran the undo. Every change looked at is marked, reverted or skipped, so
 * a second undo changes nothing. The console and the CLI call this.
 */
export interface UndoReport {
  reverted: number;
  skipped: Skip[];
}

export interface UndoOptions {
  /** Who runs it: a staff member (console) or an operator (CLI). */
  by: Exclude<Actor, { kind: 'key' }>;
  clock: Clock;
  /** Report what would be reverted and skipped, and write nothing. */
  dryRun?: boolean;
}

async function customersChangedBy(db: Queryable, keyId: string): Promise<string[]> {
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

async function loadState(db: Queryable, row: CustomerTable): Promise<CustomerState> {
  const [tags, lists] = await Promise.all([
    db.selectFrom('customer_tags').select(['tag_id', 'added_at', 'added_by_key_id']).where('customer_id', '=', row.id).execute(),
    db
      .selectFrom('customer_lists')
      .select(['list_id', 'status', 'added_at', 'unsubscribed_at', 'added_by_key_id'])
      .where('customer_id', '=', row.id)
      .execute(),
  ]);
  return {
    row: { ...row },
    tags: new Map(tags.map(({ tag_id, ...link }) => [tag_id, link])),
    lists: new Map(lists.map(({ list_id, ...link }) => [list_id, link])),
  };
}

async function planFor(
  db: Queryable,
  scope: WriteScope,
  keyId: string,
  customerId: string,
  hold: boolean,
): Promise<{ row: CustomerTable; plan: UndoPlan } | null> {
  const pendingRows = await db
    .selectFrom('change_log')
    .selectAll()
    .where('key_id', '=', keyId)
    .where('object_id', '=', customerId)
    .where('undone_at', 'is', null)
    .orderBy('customer_version', 'desc')
    .execute();
  const row = hold ? await lockCustomer(db, scope, customerId, { deleted: true }) : await findCustomerRow(db, scope, customerId);
  if (pendingRows.length === 0 || !row) return null;
  const pending = pendingRows.map(toChange);
  const history = await changesAfter(db, customerId, pending[pending.length - 1]!.customer_version);
  const targets = [...new Set(history.flatMap((h) => (h.reverts ? [h.reverts] : [])))];
  const revertedKeyOf = new Map<string, string | null>();
  if (targets.length > 0) {
    const rows = await db.selectFrom('change_log').select(['id', 'key_id']).where('id', 'in', targets).execute();
    for (const r of rows) revertedKeyOf.set(r.id, r.key_id);
  }
  const plan = await planCustomerUndo({
    keyId,
    state: await loadState(db, row),
    pending,
    history,
    revertedKeyOf,
    emailTaken: async (email) => (await emailOwner(db, scope, email, customerId)) !== null,
    now: scope.clock(),
  });
  return { row, plan };
}

async function apply(tx: Queryable, scope: WriteScope, start: CustomerTable, plan: UndoPlan): Promise<void> {
  const now = scope.clock();
  let row = start;
  for (const op of plan.ops) {
    const set: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(op.after)) {
      if (field.startsWith('tag:')) await setTagLink(tx, scope.workspaceId, row.id, field.slice(4), value as TagLinkState | null);
      else if (field.startsWith('list:')) await setListLink(tx, scope.workspaceId, row.id, field.slice(5), value as ListLinkState | null);
      else set[field] = value;
    }
    try {
      row = await bumpCustomer(tx, row, now, set);
    } catch (err) {
      // A concurrent write took the email back: plan again on fresh reads.
      if (isUniqueViolation(err)) throw new StaleWrite();
      throw err;
    }
    await recordChange(tx, scope, now, {
      action: op.action,
      customerId: row.id,
      version: row.version,
      before: op.before,
      after: op.after,
      reverts: op.change.id,
    });
  }
  for (const [id, outcome] of plan.outcomes) {
    const marked = await tx
      .updateTable('change_log')
      .set({ undone_at: now, undo_outcome: outcome })
      .where('id', '=', id)
      .where('undone_at', 'is', null)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) !== 1) throw new StaleWrite(); // another undo got there first
  }
}

export async function undoKeyChanges(db: Db, keyId: string, options: UndoOptions): Promise<UndoReport> {
  const key = isIdOf('key', keyId) ? await findKeyById(db, keyId) : null;
  if (!key) throw notFound(`No key ${keyId.slice(0, 64)}.`);
  // The undo writes in the key's workspace and mode, as the person who runs it.
  const scope: WriteScope = {
    workspaceId: key.workspaceId,
    livemode: key.mode === 'live',
    actor: options.by,
    requestId: null,
    clock: options.clock,
  };
  const report: UndoReport = { reverted: 0, skipped: [] };
  for (const customerId of await customersChangedBy(db, keyId)) {
    const result = options.dryRun
      ? (await planFor(db, scope, keyId, customerId, false))?.plan
      : await runWrite(db, {}, async (tx) => {
          const planned = await planFor(tx, scope, keyId, customerId, true);
          if (planned) await apply(tx, scope, planned.row, planned.plan);
          return planned?.plan;
        });
    if (!result) continue;
    report.reverted += [...result.outcomes.values()].filter((o) => o !== 'skipped').length;
    report.skipped.push(...result.skipped);
  }
  return report;
}
