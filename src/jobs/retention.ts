import type { Engine } from '../db/dialects/types.ts';
import type { Writer } from '../db/write.ts';
import { DAY_MS, type Clock } from '../lib/time.ts';
import { inSpan } from '../lib/trace.ts';
import { deleteAuditBefore } from '../resources/audit/audit.repo.ts';
import { deleteChangesBefore } from '../resources/changes/change-log.repo.ts';
import { deleteEventsBefore } from '../resources/webhook-events/event-feed.repo.ts';
import { deleteRequestsBefore } from '../resources/request-log/request-log.repo.ts';
import { workspaceIds } from '../resources/workspaces/workspace.repo.ts';
import { deleteUndoJobsBefore, deleteUndoSkipsBefore } from '../resources/changes/undo-job.repo.ts';
import { IDEMPOTENCY_TTL_MS } from '../resources/writes/idempotency.model.ts';
import { deleteAnswersBefore } from '../resources/writes/idempotency.repo.ts';
import { deleteInBatches } from './batches.ts';

/**
 * Retention (DECISIONS "Idempotency": 24 hours; "Change log and undo": 365 days; "Events
 * feed": EVENT_RETENTION_DAYS; "Request log": REQUEST_LOG_DAYS). The stored answers are purged
 * hourly; the change log, the audit log (kept as long, docs/console.md "Audit log"), the
 * events and the request log daily. Every process schedules both;
 * the job lock lets one of them run at a time. Deletes go in batches (batches.ts).
 */
export const CHANGE_LOG_RETENTION_MS = 365 * DAY_MS;
const HOUR_MS = 3_600_000;

export async function purgeIdempotencyKeys(store: Writer, clock: Clock, options?: { batch?: number }): Promise<number> {
  const before = clock() - IDEMPOTENCY_TTL_MS;
  return deleteInBatches((limit) => store.write((tx) => deleteAnswersBefore(tx, before, limit)), options);
}

export async function purgeChangeLog(store: Writer, clock: Clock): Promise<number> {
  const before = clock() - CHANGE_LOG_RETENTION_MS;
  return deleteInBatches((limit) => store.write((tx) => deleteChangesBefore(tx, before, limit)));
}

export async function purgeAuditLog(store: Writer, clock: Clock): Promise<number> {
  const before = clock() - CHANGE_LOG_RETENTION_MS;
  return deleteInBatches((limit) => store.write((tx) => deleteAuditBefore(tx, before, limit)));
}

/** The console's undo jobs that ended over a year ago, with what they skipped (as long as the changes they undid). */
export async function purgeUndoJobs(store: Writer, clock: Clock): Promise<number> {
  const before = clock() - CHANGE_LOG_RETENTION_MS;
  const skips = await deleteInBatches((limit) => store.write((tx) => deleteUndoSkipsBefore(tx, before, limit)));
  return skips + (await deleteInBatches((limit) => store.write((tx) => deleteUndoJobsBefore(tx, before, limit))));
}

/** The events feed's events older than EVENT_RETENTION_DAYS, workspace by workspace and mode by mode (its index). */
export async function purgeEvents(store: Writer, clock: Clock, retentionDays: number): Promise<number> {
  const before = clock() - retentionDays * DAY_MS;
  let purged = 0;
  for (const workspaceId of await workspaceIds(store.db)) {
    for (const livemode of [false, true]) {
      const scope = { workspaceId, livemode };
      purged += await deleteInBatches((limit) => store.write((tx) => deleteEventsBefore(tx, scope, before, limit)));
    }
  }
  return purged;
}

/** The request log's rows older than REQUEST_LOG_DAYS. */
export async function purgeRequestLog(store: Writer, clock: Clock, days: number): Promise<number> {
  const before = clock() - days * DAY_MS;
  return deleteInBatches((limit) => store.write((tx) => deleteRequestsBefore(tx, before, limit)));
}

/** The daily purge: the year-long logs, the undo jobs, the events and the request log, under one job lock. */
async function purgeLogs(store: Writer, clock: Clock, days: { events: number; requests: number }): Promise<number> {
  return (
    (await purgeChangeLog(store, clock)) +
    (await purgeAuditLog(store, clock)) +
    (await purgeUndoJobs(store, clock)) +
    (await purgeEvents(store, clock, days.events)) +
    (await purgeRequestLog(store, clock, days.requests))
  );
}

export interface RetentionDeps {
  store: Writer;
  engine: Engine;
  clock: Clock;
  /** EVENT_RETENTION_DAYS */
  eventRetentionDays: number;
  /** REQUEST_LOG_DAYS */
  requestLogDays: number;
  log?: { error(obj: object, msg: string): void };
}

export class RetentionJobs {
  private readonly timers: NodeJS.Timeout[] = [];
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: RetentionDeps) {}

  start(): void {
    if (this.timers.length > 0) return;
    this.every(HOUR_MS, 'purge-idempotency-keys', purgeIdempotencyKeys);
    const days = { events: this.deps.eventRetentionDays, requests: this.deps.requestLogDays };
    this.every(DAY_MS, 'purge-change-log', (store, clock) => purgeLogs(store, clock, days));
  }

  private every(interval: number, lock: string, purge: (store: Writer, clock: Clock) => Promise<number>): void {
    const run = () => {
      this.running = inSpan(`job ${lock}`, {}, () =>
        this.deps.engine.withJobLock(this.deps.store.db, lock, () => purge(this.deps.store, this.deps.clock)),
      ).catch((err) => this.deps.log?.error({ err }, `${lock} failed; retried at the next run`));
    };
    // A first run a minute after start catches up on time the service was down.
    this.timers.push(setTimeout(run, 60_000).unref(), setInterval(run, interval).unref());
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    await this.running;
  }
}
