import type { Queryable } from '../../db/schema.ts';
import type { CustomerTable } from '../../db/tables/customer.ts';
import { StaleWrite } from '../../db/stale-write.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import type { Clock } from '../../lib/time.ts';
import { personActor, type Actor } from '../actor.model.ts';
import type { AuditActor } from '../audit/audit.model.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { readCustomerJson } from '../customers/customer-json.repo.ts';
import { bumpCustomer, emailOwner, findCustomerRow, lockCustomer } from '../customers/customer-write.repo.ts';
import { membershipsOf, setMembership, type ListLinkState, type TagLinkState } from '../customers/membership.repo.ts';
import { findKeyById } from '../keys/key.repo.ts';
import type { Tx } from '../../db/schema.ts';
import type { PipelineWriter, Written } from '../writes/write.pipeline.ts';
import type { ChangeInput } from './change.model.ts';
import { changesAfter, customersChangedBy, keysOfChanges, markUndone, pendingChanges } from './undo.repo.ts';
import { planCustomerUndo, type Skip, type UndoPlan } from './undo-plan.model.ts';

/**
 * Undo a key's changes (SPEC "What the service does", DECISIONS "Change log and undo"):
 * newest first, one customer per write, each revert a change of its own recorded as made by
 * whoever ran the undo. Every change looked at is marked, reverted or skipped, so a second
 * undo changes nothing. The console and the CLI call this.
 */
export interface UndoReport {
  reverted: number;
  skipped: Skip[];
}

/** One field of a revert: what the key wrote, what is there now, what the undo puts back. */
export interface RevertValue {
  field: string;
  wrote: unknown;
  now: unknown;
  back: unknown;
}

/** One change an undo reverts (or would): which, to whom, and the fields it puts back. */
export interface RevertLine {
  change: string;
  action: string;
  customer: string;
  fields: string[];
  values: RevertValue[];
}

export interface DetailedUndoReport extends UndoReport {
  reverts: RevertLine[];
}

export interface UndoOptions {
  /** Who runs it: a staff member (console) or an operator (CLI). */
  by: { kind: 'staff' | 'operator'; id: string };
  clock: Clock;
  /** Report what would be reverted and skipped, and write nothing. */
  dryRun?: boolean;
  /** Who runs it, for the audit log (the console's person and address, the CLI's `--by`). */
  audit?: AuditActor;
}

export interface UndoTarget {
  keyId: string;
  customerId: string;
  /** Only the key's changes made at or before this instant (an undo job's); later ones stay, as kept changes. */
  until?: number;
}

/** Plans one customer's undo; `hold` reads the customer for writing (the real run). */
export async function planFor(
  db: Queryable,
  actor: Actor,
  target: UndoTarget,
  hold: Tx | null,
): Promise<{ row: CustomerTable; plan: UndoPlan } | null> {
  const { keyId, customerId } = target;
  const pending = await pendingChanges(db, keyId, customerId, target.until);
  const row = hold
    ? await lockCustomer(hold, actor, customerId, { deleted: true })
    : await findCustomerRow(db, actor, customerId);
  if (pending.length === 0 || !row) return null;
  const history = await changesAfter(db, customerId, pending[pending.length - 1]!.customer_version);
  const revertedKeyOf = await keysOfChanges(db, [...new Set(history.flatMap((h) => (h.reverts ? [h.reverts] : [])))]);
  const plan = await planCustomerUndo({
    keyId,
    state: { row: { ...row }, ...(await membershipsOf(db, customerId)) },
    pending,
    history,
    revertedKeyOf,
    emailTaken: async (email) => (await emailOwner(db, actor, email, customerId)) !== null,
    now: actor.clock(),
  });
  return { row, plan };
}

/** The write service: one customer's undo, applied, as a write of the pipeline. */
export async function undoCustomer(tx: Tx, actor: Actor, target: UndoTarget): Promise<Written<UndoPlan | null>> {
  const planned = await planFor(tx, actor, target, tx);
  if (!planned) return { value: null, changes: [] };
  const { plan } = planned;
  // The customer as GET showed it before, for its webhook event (none while it is deleted).
  const before = plan.ops.length > 0 ? await readCustomerJson(tx, actor, planned.row.id) : undefined;
  const now = actor.clock();
  const changes: ChangeInput[] = [];
  let row = planned.row;
  for (const op of plan.ops) {
    const set: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(op.after)) {
      if (field.startsWith('tag:'))
        await setMembership(tx, 'tag', actor.workspaceId, row.id, field.slice(4), value as TagLinkState | null);
      else if (field.startsWith('list:'))
        await setMembership(tx, 'list', actor.workspaceId, row.id, field.slice(5), value as ListLinkState | null);
      else set[field] = value;
    }
    try {
      row = await bumpCustomer(tx, row, now, set);
    } catch (err) {
      // A concurrent write took the email back: plan again on fresh reads.
      if (isUniqueViolation(err)) throw new StaleWrite();
      throw err;
    }
    changes.push({
      at: now,
      action: op.action,
      customerId: row.id,
      version: row.version,
      before: op.before,
      after: op.after,
      reverts: op.change.id,
      revertsKey: op.change.key_id,
    });
  }
  for (const [id, outcome] of plan.outcomes) {
    if (!(await markUndone(tx, id, now, outcome))) throw new StaleWrite(); // another undo got there first
  }
  return { value: plan, changes, records: before && new Map([[before.id, { before: before.record }]]) };
}

export async function undoKeyChanges(
  storage: PipelineWriter,
  keyId: string,
  options: UndoOptions,
): Promise<UndoReport> {
  const { reverted, skipped } = await undoKeyChangesInDetail(storage, keyId, options);
  return { reverted, skipped };
}

/** The same undo, also listing each change reverted (the report's `reverts`). */
async function undoKeyChangesInDetail(
  storage: PipelineWriter,
  keyId: string,
  options: UndoOptions,
): Promise<DetailedUndoReport> {
  const { db } = storage;
  const key = isIdOf('key', keyId) ? await findKeyById(db, keyId) : null;
  if (!key) throw notFound(`No key ${keyId.slice(0, 64)}.`);
  // The undo writes in the key's workspace and mode, as the person who runs it.
  const actor = personActor(
    options.by.kind,
    options.by.id,
    { workspaceId: key.workspaceId, livemode: key.mode === 'live' },
    options.clock,
  );
  const report: DetailedUndoReport = { reverted: 0, skipped: [], reverts: [] };
  const audit = options.dryRun ? undefined : options.audit;
  if (!audit) return undoEach(storage, keyId, actor, options, report);
  // An undo is one write per customer, so its entry cannot share their transactions: it is
  // written once the run ends, with what it did, and also when the run stops partway.
  const record = (finished: boolean) =>
    storage.write((tx) =>
      recordAudit(tx, {
        workspaceId: key.workspaceId,
        at: options.clock(),
        by: audit,
        action: 'undo.run',
        target: keyId,
        detail: { reverted: report.reverted, skipped: report.skipped.length, finished },
      }),
    );
  try {
    await undoEach(storage, keyId, actor, options, report);
  } catch (err) {
    if (report.reverted > 0) await record(false).catch(() => undefined);
    throw err;
  }
  await record(true);
  return report;
}

async function undoEach(
  storage: PipelineWriter,
  keyId: string,
  actor: Actor,
  options: UndoOptions,
  report: DetailedUndoReport,
): Promise<DetailedUndoReport> {
  const { db } = storage;
  const { writes } = storage;
  for (const customerId of await customersChangedBy(db, keyId)) {
    const target = { keyId, customerId };
    const plan = options.dryRun
      ? (await planFor(db, actor, target, null))?.plan
      : await writes.run(actor, undoCustomer, target);
    if (!plan) continue;
    report.reverted += [...plan.outcomes.values()].filter((o) => o !== 'skipped').length;
    report.skipped.push(...plan.skipped);
    report.reverts.push(...revertLines(plan, customerId));
  }
  return report;
}

/** A plan's reverts as the console shows them: per field, what the key wrote, what is there, what goes back. */
export function revertLines(plan: UndoPlan, customerId: string): RevertLine[] {
  return plan.ops.map((op) => ({
    change: op.change.id,
    action: op.change.action,
    customer: customerId,
    fields: Object.keys(op.after),
    values: Object.keys(op.after).map((field) => ({
      field,
      wrote: op.change.after?.[field] ?? null,
      now: op.before[field] ?? null,
      back: op.after[field] ?? null,
    })),
  }));
}
