import { randomBase62 } from '../lib/ids.ts';
import { OutageLog } from '../lib/outage-log.ts';
import { inSpan } from '../lib/trace.ts';
import type { Clock } from '../lib/time.ts';
import { personActor } from '../resources/actor.model.ts';
import { nextCustomersToUndo } from '../resources/changes/undo.repo.ts';
import { claimUndoJob, releaseUndoJob } from '../resources/changes/undo-job.repo.ts';
import { endUndo, LostUndoClaim, undoBatch, type UndoJob } from '../resources/changes/undo-job.service.ts';
import { findKeyById } from '../resources/keys/key.repo.ts';
import type { PipelineWriter, WritePipeline } from '../resources/writes/write.pipeline.ts';

/**
 * The undo job worker (docs/console.md "Undo"), one in every server process. It claims one job
 * at a time for a lease (on PostgreSQL `FOR UPDATE SKIP LOCKED`, so two processes never take
 * the same job) and runs it in batches, each one write of the pipeline that renews the lease,
 * reverts the customers of the key's next changes and adds to the job's counts. A batch commits
 * only while this process's claim still holds, so one process runs a job; one that dies leaves
 * the lease to run out, and another takes the job up where its last batch ended. One that
 * stops gives the job back between batches.
 */
export interface UndoWorkerDeps {
  store: PipelineWriter;
  clock: Clock;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** How often queued jobs are looked for (ms). */
  pollMs?: number;
  /** The key's changes a batch takes (their customers are undone whole). */
  batch?: number;
  /** How long a claim holds without a batch renewing it (ms). */
  leaseMs?: number;
  /** Called after each batch has committed (tests hold the job there to look at it mid-way). */
  afterBatch?: (job: UndoJob) => Promise<void>;
}

const BATCH = 100;
const LEASE_MS = 60_000;
/** A batch that fails this many times in a row (not a lost claim) fails the job. */
const ATTEMPTS = 3;

export class UndoJobWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopping = false;
  private readonly writes: WritePipeline;
  private readonly runs: OutageLog;

  constructor(private readonly deps: UndoWorkerDeps) {
    this.writes = deps.store.writes;
    this.runs = new OutageLog(deps.log, 'running undo jobs');
  }

  start(): void {
    if (this.timer) return;
    this.stopping = false;
    this.timer = setInterval(() => this.poke(), this.deps.pollMs ?? 1000).unref();
    this.poke();
  }

  /** Look for a job now. */
  poke(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runAll()
      .then(
        () => this.runs.succeeded(),
        (err) => this.runs.failed(err),
      )
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  /** Runs jobs until none is due (tests). */
  async drain(): Promise<void> {
    this.poke();
    while (this.running) await this.running;
  }

  /** Stops after the batch in flight; the job it was running is given back. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  private async runAll(): Promise<void> {
    while (!this.stopping) {
      const claim = randomBase62(22);
      const now = this.deps.clock();
      const job = await this.deps.store.write((tx) =>
        claimUndoJob(tx, this.deps.store.engine, now, claim, now + this.lease()),
      );
      if (!job) return;
      await inSpan('job undo', { attributes: { 'undo.job': job.id } }, () => this.run(job, claim));
    }
  }

  private lease(): number {
    return this.deps.leaseMs ?? LEASE_MS;
  }

  private async run(claimed: UndoJob, claim: string): Promise<void> {
    let job = claimed;
    const { store, clock } = this.deps;
    // The undo's changes are the person's who asked for it, in the key's workspace and mode.
    const key = await findKeyById(store.db, job.key_id);
    const actor = personActor(
      job.requested_by_kind,
      job.requested_by,
      { workspaceId: job.workspace_id, livemode: key?.mode === 'live' },
      clock,
    );
    let failures = 0;
    for (;;) {
      if (this.stopping) {
        await store.write((tx) => releaseUndoJob(tx, job.id, claim, clock()));
        return;
      }
      try {
        const customers = await nextCustomersToUndo(store.db, job.key_id, job.until, this.deps.batch ?? BATCH);
        if (customers.length === 0) {
          await endUndo(store, job.id, claim, clock, { status: 'done', error: null });
          return;
        }
        const batch = {
          jobId: job.id,
          claim,
          leaseUntil: clock() + this.lease(),
          keyId: job.key_id,
          until: job.until,
          customers,
        };
        job = await this.writes.run(actor, undoBatch, batch);
        failures = 0;
      } catch (err) {
        if (err instanceof LostUndoClaim) {
          this.deps.log?.info({ job: job.id }, 'undo job taken up by another process');
          return;
        }
        this.deps.log?.warn({ err, job: job.id }, 'an undo batch failed');
        if (++failures < ATTEMPTS) continue;
        await endUndo(store, job.id, claim, clock, {
          status: 'failed',
          error: err instanceof Error ? err.message.slice(0, 500) : String(err),
        });
        return;
      }
      await this.deps.afterBatch?.(job);
    }
  }
}
