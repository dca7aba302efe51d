import type { Tx } from '../db/schema.ts';
import type { WebhookEndpointTable } from '../db/tables/webhook.ts';
import { groupBy } from '../lib/group-by.ts';
import { recordOutcomes, releaseClaims } from '../resources/webhooks/webhook-delivery.repo.ts';
import type { Finished, Held } from './webhook-attempt.ts';
import { noteEndpoints, tellDisabled } from './webhook-endpoint-health.ts';
import type { WebhookWorkerDeps } from './webhook-worker-deps.ts';

/** Outcomes wait this long for others (or the next claim) to share their transaction, or until this many wait. */
const GATHER_MS = 50;
const GATHER_MAX = 256;
/** While the process is busy serving, outcomes wait longer, so its few attempts share one transaction. */
const BUSY_GATHER_MS = 1_000;

type OutcomeDeps = Pick<WebhookWorkerDeps, 'store' | 'clock' | 'mail' | 'log' | 'onOutcome' | 'yieldTo'>;

/**
 * The webhook worker's attempts that ended and held deliveries it gave back, gathered until
 * they are written together: in the next claim's transaction (`take`, `recordIn`, then
 * `recorded`), or in one of their own (`record`) when no claim comes first.
 */
export class OutcomeRecorder {
  private finished: Finished[] = [];
  private released: Held[] = [];
  private gatherTimer: NodeJS.Timeout | null = null;
  private recording: Promise<void> | null = null;

  constructor(private readonly deps: OutcomeDeps) {}

  finish(finished: Finished): void {
    this.finished.push(finished);
    this.gather();
  }

  /** Held deliveries not started; the caller gathers (or records) them. */
  giveBack(held: readonly Held[]): void {
    this.released.push(...held);
  }

  /** Whether a recording is under way or anything waits for one. */
  get pending(): boolean {
    return this.recording !== null || this.finished.length > 0 || this.released.length > 0;
  }

  /** Records what waits once a few more outcomes could join it, or at once when many wait. */
  gather(): void {
    if (this.finished.length + this.released.length >= GATHER_MAX) {
      void this.record();
      return;
    }
    if (this.gatherTimer || this.recording) return;
    this.gatherTimer = setTimeout(
      () => {
        this.gatherTimer = null;
        void this.record();
      },
      this.deps.yieldTo?.busy() ? BUSY_GATHER_MS : GATHER_MS,
    );
  }

  /**
   * Outcomes a failed transaction did not record wait for the next one, once, while their
   * claim holds; after that the claims run out and the deliveries are attempted again (at
   * least once, as promised). Recording twice is harmless: an outcome is written only under
   * its own claim, which the first write, if it did commit, ended.
   */
  putBack(finished: readonly Finished[], released: readonly Held[]): void {
    const now = this.deps.clock();
    const again = <T extends Held>(h: T) => (h.failures ?? 0) < 1 && h.lease > now;
    this.finished.unshift(...finished.filter(again).map((f) => ({ ...f, failures: (f.failures ?? 0) + 1 })));
    this.released.unshift(...released.filter(again).map((r) => ({ ...r, failures: (r.failures ?? 0) + 1 })));
  }

  take(): { finished: Finished[]; released: Held[] } {
    if (this.gatherTimer) clearTimeout(this.gatherTimer);
    this.gatherTimer = null;
    const taken = { finished: this.finished, released: this.released };
    this.finished = [];
    this.released = [];
    return taken;
  }

  /** One transaction for every outcome and give-back waiting (no claim was coming to take them). */
  record(): Promise<void> {
    if (this.recording) return this.recording.then(() => this.record());
    if (this.finished.length === 0 && this.released.length === 0) return Promise.resolve();
    const { finished, released } = this.take();
    this.recording = this.deps.store
      .write((tx) => this.recordIn(tx, finished, released, this.deps.clock()))
      .then(({ recorded, disabled }) => this.recorded(finished, recorded, disabled))
      .catch((err) => {
        this.deps.log?.warn({ err, attempts: finished.length }, 'recording webhook attempts failed');
        this.putBack(finished, released);
      })
      .finally(() => {
        this.recording = null;
        if (this.finished.length > 0 || this.released.length > 0) this.gather();
      });
    return this.recording;
  }

  /** Writes outcomes (each only where its claim still holds) and give-backs, and what they mean for endpoints. */
  async recordIn(
    tx: Tx,
    finished: readonly Finished[],
    released: readonly Held[],
    now: number,
  ): Promise<{ recorded: Set<string>; disabled: WebhookEndpointTable[] }> {
    const recorded = new Set<string>();
    // Attempts that came to the same outcome under the same claim are one statement.
    const groups = groupBy(finished, ({ lease, outcome: o }) =>
      JSON.stringify([lease, o.status, o.lastStatus, o.lastError, o.nextAttemptAt]),
    );
    for (const group of groups.values()) {
      const ids = group.map((f) => f.claimed.delivery.id);
      for (const id of await recordOutcomes(tx, ids, group[0]!.lease, group[0]!.outcome, now)) recorded.add(id);
    }
    for (const [lease, held] of groupBy(released, (r) => r.lease)) {
      const ids = held.map((r) => r.claimed.delivery.id);
      await releaseClaims(tx, ids, lease);
    }
    const disabled = await noteEndpoints(
      tx,
      finished.filter((f) => recorded.has(f.claimed.delivery.id)),
    );
    return { recorded, disabled };
  }

  /** Once recorded: the metrics, and the email for each endpoint disabled. */
  async recorded(
    finished: readonly Finished[],
    recorded: ReadonlySet<string>,
    disabled: readonly WebhookEndpointTable[],
  ): Promise<void> {
    for (const f of finished) {
      if (!recorded.has(f.claimed.delivery.id)) continue;
      const { status } = f.outcome;
      this.deps.onOutcome?.(status === 'delivered' ? 'delivered' : status === 'failed' ? 'failed' : 'retrying');
    }
    for (const d of disabled) await tellDisabled(this.deps, d.workspace_id, d.id, d.url);
  }
}
