import type { Queryable } from '../../db/schema.ts';
import type { UndoJobSkipTable, UndoJobTable } from '../../db/tables/change.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import type { Writer } from '../../db/write.ts';
import { conflict } from '../../errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Clock } from '../../lib/time.ts';
import type { Actor } from '../actor.model.ts';
import type { AuditActor } from '../audit/audit.model.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { KeyRecord } from '../keys/key.repo.ts';
import type { Tx } from '../../db/schema.ts';
import type { Written } from '../writes/write.pipeline.ts';
import type { ChangeInput } from './change.model.ts';
import { countPending, markUndone, pendingChanges } from './undo.repo.ts';
import { addProgress, endUndoJob, insertUndoJob, latestUndoJob, renewClaim, undoJobSkips } from './undo-job.repo.ts';
import type { Skip } from './undo-plan.model.ts';
import { undoCustomer } from './undo.service.ts';

/**
 * The console's undo as a job (docs/console.md "Undo"): asked for in one short write, run by
 * a server process in batches (src/jobs/undo-jobs.ts), each batch one write of the pipeline
 * that reverts some customers and adds to the job's counts in the same transaction. Every
 * change looked at is marked in that transaction too, so a job taken up again after a crash
 * goes on from the first change not yet looked at and reverts nothing twice.
 */
export type UndoJob = UndoJobTable;

/** Queued or running: a second undo of the key is refused meanwhile. */
export const isOpen = (job: UndoJob): boolean => job.status === 'queued' || job.status === 'running';

const UNDO_RUNNING =
  "An undo of this key's changes is already running; its progress is on the key's page. Start another once it has finished.";

/** Queues an undo of the key's changes made until now; refused (409) while one is queued or running. */
export async function requestUndo(
  store: Writer,
  key: Pick<KeyRecord, 'id' | 'workspaceId'>,
  by: { kind: 'staff' | 'operator'; id: string },
  audit: AuditActor,
  clock: Clock,
): Promise<UndoJob> {
  const now = clock();
  try {
    return await store.write(async (tx) => {
      const row: UndoJobTable = {
        id: newId('undo_job'),
        workspace_id: key.workspaceId,
        key_id: key.id,
        requested_by_kind: by.kind,
        requested_by: by.id,
        audit_actor: JSON.stringify(audit),
        status: 'queued',
        total: await countPending(tx, key.id, now),
        until: now,
        reverted: 0,
        skipped: 0,
        skip_rows: 0,
        error: null,
        claim: null,
        claimed_until: null,
        created_at: now,
        started_at: null,
        updated_at: now,
        finished_at: null,
      };
      await insertUndoJob(tx, row);
      return row;
    });
  } catch (err) {
    // The index that allows one open job a key settled a race with another request.
    if (isUniqueViolation(err)) throw conflict(UNDO_RUNNING);
    throw err;
  }
}

/** The job's claim was taken by another process (its lease ran out): this one stops, writing nothing. */
export class LostUndoClaim extends Error {
  constructor() {
    super('the undo job was claimed by another process');
  }
}

export interface UndoBatch {
  jobId: string;
  claim: string;
  leaseUntil: number;
  keyId: string;
  until: number;
  customers: string[];
}

function skipRow(s: Skip): Omit<UndoJobSkipTable, 'job_id' | 'seq'> {
  return {
    change_id: s.change,
    action: s.action,
    customer_id: s.customer,
    field: s.field ?? null,
    reason: s.reason,
    by: s.by ?? null,
  };
}

/**
 * The write service of one batch: renews the claim first (and stops if another process holds
 * the job now), undoes each customer as the undo does, and adds what it did to the job.
 */
export async function undoBatch(tx: Tx, actor: Actor, batch: UndoBatch): Promise<Written<UndoJob>> {
  const now = actor.clock();
  const job = await renewClaim(tx, batch.jobId, batch.claim, now, batch.leaseUntil);
  if (!job) throw new LostUndoClaim();
  const changes: ChangeInput[] = [];
  const records = new Map<string, { before?: string }>();
  const counts = { reverted: 0, skipped: 0 };
  const skips: Omit<UndoJobSkipTable, 'job_id' | 'seq'>[] = [];
  for (const customerId of batch.customers) {
    const target = { keyId: batch.keyId, customerId, until: batch.until };
    const { value: plan, changes: made, records: shown } = await undoCustomer(tx, actor, target);
    changes.push(...made);
    for (const [id, record] of shown ?? []) records.set(id, record);
    if (plan) {
      for (const outcome of plan.outcomes.values()) {
        if (outcome === 'skipped') counts.skipped++;
        else counts.reverted++;
      }
      skips.push(...plan.skipped.map(skipRow));
      continue;
    }
    // No customer row to plan on (never expected: customers are deleted by a mark, not
    // removed): its changes are marked skipped, so no later batch meets them again.
    for (const change of await pendingChanges(tx, batch.keyId, customerId, batch.until)) {
      await markUndone(tx, change.id, now, 'skipped');
      counts.skipped++;
      skips.push(
        skipRow({ change: change.id, action: change.action, customer: customerId, reason: 'customer_deleted' }),
      );
    }
  }
  await addProgress(tx, job, counts, skips);
  return {
    value: {
      ...job,
      reverted: job.reverted + counts.reverted,
      skipped: job.skipped + counts.skipped,
      skip_rows: job.skip_rows + skips.length,
    },
    changes,
    records,
  };
}

/**
 * Ends the job, done or failed, with its audit entry in the same transaction (as the undo
 * writes it: who asked, and the counts; a failed one only when it had reverted something).
 */
export async function endUndo(
  store: Writer,
  jobId: string,
  claim: string,
  clock: Clock,
  end: { status: 'done' | 'failed'; error: string | null },
): Promise<UndoJob | undefined> {
  return store.write(async (tx) => {
    const now = clock();
    const job = await endUndoJob(tx, jobId, claim, now, end);
    if (!job || (end.status === 'failed' && job.reverted === 0)) return job;
    await recordAudit(tx, {
      workspaceId: job.workspace_id,
      at: now,
      by: JSON.parse(job.audit_actor) as AuditActor,
      action: 'undo.run',
      target: job.key_id,
      detail: { reverted: job.reverted, skipped: job.skip_rows, finished: end.status === 'done' },
    });
    return job;
  });
}

/** The key's latest undo job, open or ended (the preview offers no second undo while one is open). */
export function latestUndo(db: Queryable, workspaceId: string, keyId: string): Promise<UndoJob | undefined> {
  return latestUndoJob(db, workspaceId, keyId);
}

const SKIPS_PAGE_SIZE = 50;

/** The key's latest undo job as its page shows it: progress, and a page of what it skipped. */
export interface UndoJobView {
  job: UndoJob;
  skipped: Skip[];
  page: number;
  pages: number;
}

export async function undoJobOf(
  db: Queryable,
  workspaceId: string,
  keyId: string,
  page: number,
): Promise<UndoJobView | null> {
  const job = await latestUndoJob(db, workspaceId, keyId);
  if (!job) return null;
  const pages = Math.max(1, Math.ceil(job.skip_rows / SKIPS_PAGE_SIZE));
  const wanted = Math.min(Math.max(1, page), pages);
  const rows = await undoJobSkips(db, job.id, { offset: (wanted - 1) * SKIPS_PAGE_SIZE, limit: SKIPS_PAGE_SIZE });
  const skipped = rows.map(
    (r): Skip => ({
      change: r.change_id,
      action: r.action as Skip['action'],
      customer: r.customer_id,
      ...(r.field === null ? {} : { field: r.field }),
      reason: r.reason as Skip['reason'],
      ...(r.by === null ? {} : { by: r.by }),
    }),
  );
  return { job, skipped, page: wanted, pages };
}
