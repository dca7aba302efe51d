import type { Insertable } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { UndoJobSkipTable, UndoJobTable } from '../../db/tables/change.ts';

/** Undo jobs and the changes they left alone (015-undo-jobs). */

export async function insertUndoJob(tx: Tx, row: Insertable<UndoJobTable>): Promise<void> {
  await tx.insertInto('undo_jobs').values(row).execute();
}

/** The key's most recent undo job, whatever it came to. */
export async function latestUndoJob(db: Queryable, workspaceId: string, keyId: string) {
  return db
    .selectFrom('undo_jobs')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key_id', '=', keyId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Claims the oldest job that is queued, or running without a live claim (its process died or
 * gave it back), for `claim` until `leaseUntil`. On PostgreSQL the row is picked
 * `FOR UPDATE SKIP LOCKED`, so two processes claiming at once never take the same job;
 * SQLite serves one process.
 */
export async function claimUndoJob(
  tx: Tx,
  engine: Pick<Engine, 'claimRows'>,
  now: number,
  claim: string,
  leaseUntil: number,
): Promise<UndoJobTable | undefined> {
  const due = tx
    .selectFrom('undo_jobs')
    .select('id')
    .where((eb) =>
      eb.or([
        eb('status', '=', 'queued'),
        eb.and([eb('status', '=', 'running'), eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)])]),
      ]),
    )
    .orderBy('created_at')
    .limit(1);
  const found = await engine.claimRows(due).executeTakeFirst();
  if (!found) return undefined;
  await tx
    .updateTable('undo_jobs')
    .set((eb) => ({
      status: 'running',
      claim,
      claimed_until: leaseUntil,
      started_at: eb.fn.coalesce('started_at', eb.val(now)),
      updated_at: now,
    }))
    .where('id', '=', found.id)
    .execute();
  return tx.selectFrom('undo_jobs').selectAll().where('id', '=', found.id).executeTakeFirstOrThrow();
}

/**
 * Renews the claim for a batch, as the batch's first statement (so on PostgreSQL it holds the
 * row until the batch commits); answers the job as it stands, or undefined when the claim is
 * no longer this process's (another took the job after the lease ran out).
 */
export async function renewClaim(
  tx: Tx,
  jobId: string,
  claim: string,
  now: number,
  leaseUntil: number,
): Promise<UndoJobTable | undefined> {
  const renewed = await tx
    .updateTable('undo_jobs')
    .set({ claimed_until: leaseUntil, updated_at: now })
    .where('id', '=', jobId)
    .where('claim', '=', claim)
    .where('status', '=', 'running')
    .executeTakeFirst();
  if (Number(renewed.numUpdatedRows) !== 1) return undefined;
  return tx.selectFrom('undo_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
}

/** Adds a batch's counts (under the claim the batch renewed) and the rows it skipped. */
export async function addProgress(
  tx: Tx,
  job: UndoJobTable,
  counts: { reverted: number; skipped: number },
  skips: Omit<UndoJobSkipTable, 'job_id' | 'seq'>[],
): Promise<void> {
  await tx
    .updateTable('undo_jobs')
    .set({
      reverted: job.reverted + counts.reverted,
      skipped: job.skipped + counts.skipped,
      skip_rows: job.skip_rows + skips.length,
    })
    .where('id', '=', job.id)
    .execute();
  const rows = skips.map((s, i) => ({ ...s, job_id: job.id, seq: job.skip_rows + i }));
  for (let i = 0; i < rows.length; i += 200)
    await tx
      .insertInto('undo_job_skips')
      .values(rows.slice(i, i + 200))
      .execute();
}

/** Ends the job (done or failed) if this process still holds it; answers the job as it ended. */
export async function endUndoJob(
  tx: Tx,
  jobId: string,
  claim: string,
  now: number,
  end: { status: 'done' | 'failed'; error: string | null },
): Promise<UndoJobTable | undefined> {
  const ended = await tx
    .updateTable('undo_jobs')
    .set({ status: end.status, error: end.error, claim: null, claimed_until: null, finished_at: now, updated_at: now })
    .where('id', '=', jobId)
    .where('claim', '=', claim)
    .executeTakeFirst();
  if (Number(ended.numUpdatedRows) !== 1) return undefined;
  return tx.selectFrom('undo_jobs').selectAll().where('id', '=', jobId).executeTakeFirstOrThrow();
}

/** Gives a running job back (the process stops): another process may claim it at once. */
export async function releaseUndoJob(tx: Tx, jobId: string, claim: string, now: number): Promise<void> {
  await tx
    .updateTable('undo_jobs')
    .set({ claim: null, claimed_until: null, updated_at: now })
    .where('id', '=', jobId)
    .where('claim', '=', claim)
    .execute();
}

/** One page of what a job left alone, in the order it met them. */
export async function undoJobSkips(
  db: Queryable,
  jobId: string,
  page: { offset: number; limit: number },
): Promise<UndoJobSkipTable[]> {
  return db
    .selectFrom('undo_job_skips')
    .selectAll()
    .where('job_id', '=', jobId)
    .orderBy('seq')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
}

/**
 * One batch of the skipped rows of a job that ended before `before` (kept as long as the change
 * log): the next `limit` rows in order of one such job, so a batch is one range of its key.
 */
export async function deleteUndoSkipsBefore(tx: Tx, before: number, limit: number): Promise<number> {
  const job = await tx
    .selectFrom('undo_jobs as j')
    .select('j.id')
    .where('j.finished_at', '<', before)
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('undo_job_skips as s').select('s.seq').whereRef('s.job_id', '=', 'j.id')),
    )
    .limit(1)
    .executeTakeFirst();
  if (!job) return 0;
  const first = await tx
    .selectFrom('undo_job_skips')
    .select((eb) => eb.fn.min('seq').as('seq'))
    .where('job_id', '=', job.id)
    .executeTakeFirstOrThrow();
  const result = await tx
    .deleteFrom('undo_job_skips')
    .where('job_id', '=', job.id)
    .where('seq', '<', Number(first.seq) + limit)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** One batch of the jobs that ended before `before`, once their skipped rows are gone. */
export async function deleteUndoJobsBefore(tx: Tx, before: number, limit: number): Promise<number> {
  const result = await tx
    .deleteFrom('undo_jobs')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('undo_jobs as j')
        .select('j.id')
        .where('j.finished_at', '<', before)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('undo_job_skips as s').select('s.seq').whereRef('s.job_id', '=', 'j.id'))),
        )
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
