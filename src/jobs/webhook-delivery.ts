import type { Engine } from '../db/dialects/types.ts';
import type { Writer } from '../db/write.ts';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../lib/time.ts';
import type { LoadGauge } from './event-loop-gauge.ts';
import { signWebhook } from '../lib/webhook-signature.ts';
import {
  claimDue,
  nextDue,
  onDeliveriesWritten,
  recordOutcomes,
  releaseClaims,
  type AttemptOutcome,
  type ClaimedDelivery,
} from '../resources/webhooks/webhook-delivery.repo.ts';
import { disableIfFailingSince, noteAttempt } from '../resources/webhooks/webhook-endpoint.repo.ts';
import { payloadFor } from '../resources/webhooks/webhook-payload.model.ts';
import type { Tx, WebhookEndpointTable } from '../db/schema.ts';
import { FAILING_DISABLE_MS } from '../resources/webhooks/webhook.model.ts';
import { emailKeyManagers, type MailSettings } from './pause-email.ts';
import { ATTEMPT_TIMEOUT_MS, postWebhook, type AttemptResult } from './webhook-sender.ts';

/**
 * The webhook delivery worker (DECISIONS "Webhooks"), one in every server process. All its
 * state is in the database: it claims due deliveries for a lease (on PostgreSQL with
 * `FOR UPDATE SKIP LOCKED`, so processes never take the same row), makes each attempt, and
 * records the outcome only while its lease holds, so every attempt is made by one process.
 * A process that dies leaves its claims to expire and be taken again; one that stops
 * finishes its attempts in flight and gives back what it had not started.
 *
 * Attempts run concurrently, at most `perEndpoint` to one endpoint, so a slow or dead
 * receiver holds up only its own queue, and none of it runs on a request's path.
 *
 * What it costs the API is its transactions (on SQLite each joins the one writer's group
 * commit; on PostgreSQL each is round trips and a commit), so they are few and large: one
 * claim takes many deliveries, held in this process until a slot to their endpoint frees;
 * outcomes are gathered for a few milliseconds and recorded together in one transaction. It
 * looks for work when this process writes deliveries (after a moment, so a burst is claimed
 * at once), when its hold runs low, and otherwise polls with a read (no transaction), sooner
 * after work and less often the longer it finds none.
 */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

export interface WebhookWorkerDeps {
  store: Writer;
  engine: Pick<Engine, 'claimRows'>;
  clock: Clock;
  mail: MailSettings;
  /** WEBHOOK_ALLOW_PRIVATE */
  allowPrivate: boolean;
  /** WEBHOOK_RETRY_SCHEDULE, in seconds. */
  retrySchedule: readonly number[];
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Each attempt's outcome once recorded, for /metrics. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
  /** The longest wait between looks for due deliveries when nothing prompts one (ms). */
  pollMs?: number;
  /** Attempts in flight at once in this process. */
  slots?: number;
  /** Attempts in flight at once to one endpoint. */
  perEndpoint?: number;
  /** The attempt itself (tests replace it). */
  send?: typeof postWebhook;
  /**
   * The server's requests come first: while this gauge says the process is busy, attempts
   * start at most `busyStartsPerSecond` a second, so a burst of writes with an endpoint
   * listening costs the API a small share of its CPU and the queue catches up once the load
   * eases (its depth and oldest age are in /metrics). Unset (tests, the CLI): no limit.
   */
  yieldTo?: LoadGauge;
  /** Attempts started a second while `yieldTo` says busy; BUSY_STARTS_PER_SECOND unset. */
  busyStartsPerSecond?: number;
}

/**
 * Attempts a busy process still starts a second: the queue keeps moving, at a small share of
 * its CPU (each attempt is a request to the receiver and a share of a transaction recording it).
 */
export const BUSY_STARTS_PER_SECOND = 20;

/** A claim outlives the longest attempt, with room for writing its outcome. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 20_000;
/** A held delivery is started only with this much of its lease left: the attempt and its recording. */
const START_WITHIN_LEASE_MS = ATTEMPT_TIMEOUT_MS + 5_000;
/** Deliveries of one endpoint held at once, as a multiple of its cap: the next claim's worth waits ready. */
const HOLD_PER_SLOT = 8;
/** Outcomes wait this long for others (or the next claim) to share their transaction, or until this many wait. */
const GATHER_MS = 50;
const GATHER_MAX = 256;
/** While the process is busy serving, outcomes wait longer, so its few attempts share one transaction. */
const BUSY_GATHER_MS = 1_000;
/** After this process writes deliveries, the claim waits this long for others to take with them. */
const WAKE_MS = 10;
/** The first poll after work; each empty poll doubles the wait, up to `pollMs`. */
const FIRST_POLL_MS = 100;

interface Held {
  claimed: ClaimedDelivery;
  lease: number;
  /** Transactions that failed to record it so far. */
  failures?: number;
}

interface Finished extends Held {
  result: AttemptResult;
  outcome: AttemptOutcome;
  at: number;
}

export class WebhookDeliveryWorker {
  private started = false;
  private stopping = false;
  private unsubscribe: (() => void) | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private pollWait = FIRST_POLL_MS;
  private wakeTimer: NodeJS.Timeout | null = null;
  /** Endpoints with deliveries written in this process since the last wake. */
  private readonly told = new Set<string>();
  private filling: Promise<void> | null = null;
  private again = false;
  /** Whether a claim may find something: not after one found all there was, until new work is told of. */
  private dueLikely = true;
  /** Claims and give-backs so far (drain stops once a look changes nothing). */
  private progress = 0;
  /** Claimed and not started, by endpoint, in claim order. */
  private readonly waiting = new Map<string, Held[]>();
  /** Attempts in flight, by endpoint. */
  private readonly running = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private finished: Finished[] = [];
  private released: Held[] = [];
  private gatherTimer: NodeJS.Timeout | null = null;
  private recording: Promise<void> | null = null;
  /** While busy: starts allowed now, and the timer that starts more once they are used. */
  private busyAllowance = 0;
  private busyRefilled = 0;
  private busyTimer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: WebhookWorkerDeps) {}

  private get slots(): number {
    return this.deps.slots ?? 64;
  }

  private get cap(): number {
    return this.deps.perEndpoint ?? 16;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    this.unsubscribe = onDeliveriesWritten((endpointIds) => this.wake(endpointIds));
    this.poke();
  }

  /** Look for due deliveries now. */
  poke(): void {
    if (this.stopping) return;
    this.dueLikely = true;
    this.look();
  }

  private look(): void {
    if (this.stopping) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill()
      .catch((err) => this.deps.log?.warn({ err }, 'claiming webhook deliveries failed'))
      .finally(() => {
        this.filling = null;
        if (this.again) {
          this.again = false;
          this.look();
        } else this.schedulePoll();
      });
  }

  /** Claims and attempts until nothing is due, in flight or unrecorded (tests, and the CLI). */
  async drain(): Promise<void> {
    for (;;) {
      const before = this.progress;
      this.poke();
      await this.settle();
      if (this.progress === before) return;
    }
  }

  /** Stops claiming; attempts in flight finish and are recorded, held ones are given back. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.started = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const timer of [this.pollTimer, this.wakeTimer, this.busyTimer]) if (timer) clearTimeout(timer);
    this.pollTimer = null;
    this.wakeTimer = null;
    this.busyTimer = null;
    await this.filling;
    for (const held of this.waiting.values()) this.released.push(...held);
    this.waiting.clear();
    await this.settle();
  }

  /** Waits until no claim, attempt or recording is under way or waiting. */
  private async settle(): Promise<void> {
    for (;;) {
      if (this.filling) await this.filling;
      else if (this.inFlight.size > 0) await Promise.all(this.inFlight);
      else if (this.recording || this.finished.length > 0 || this.released.length > 0) await this.record();
      else return;
    }
  }

  /**
   * Deliveries were written in this process: claim them once their transaction can have
   * committed. Those of an endpoint holding more than half its share wait for the claim its
   * next attempts make, so a busy endpoint's stream of writes is claimed in large takes.
   */
  private wake(endpointIds: readonly string[]): void {
    if (this.stopping) return;
    this.dueLikely = true;
    for (const id of endpointIds) this.told.add(id);
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      const half = (this.cap * HOLD_PER_SLOT) / 2;
      const waiting = [...this.told].some((id) => this.heldBy(id) <= half);
      this.told.clear();
      if (waiting) this.poke();
    }, WAKE_MS).unref();
  }

  /** The next look when nothing prompts one: a read first, a claim only when something is due. */
  private schedulePoll(): void {
    if (!this.started || this.stopping) return;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    const wait = Math.min(this.pollWait, this.deps.pollMs ?? 2_000);
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      this.poll().catch((err) => this.deps.log?.warn({ err }, 'looking for webhook deliveries failed'));
    }, wait).unref();
  }

  private async poll(): Promise<void> {
    if (this.stopping) return;
    const now = this.deps.clock();
    const due = await nextDue(this.deps.store.db, now);
    if (due !== null && due <= now) {
      this.poke();
      return;
    }
    this.pollWait = Math.min(this.pollWait * 2, this.deps.pollMs ?? 2_000);
    if (due !== null) this.pollWait = Math.max(1, Math.min(this.pollWait, due - now));
    this.schedulePoll();
  }

  private heldBy(endpointId: string): number {
    return (this.waiting.get(endpointId)?.length ?? 0) + (this.running.get(endpointId) ?? 0);
  }

  /**
   * Claims while there may be more due and room to hold it; each claim's transaction also
   * records the outcomes that wait, so a busy worker makes one transaction per claim. Due
   * deliveries a claim passed over (their endpoint's share filled) are taken by a later look:
   * an attempt's end, a wake or the poll.
   */
  private async fill(): Promise<void> {
    const perEndpoint = this.cap * HOLD_PER_SLOT;
    while (this.dueLikely && !this.stopping) {
      const held = new Map<string, number>();
      let total = 0;
      for (const id of new Set([...this.waiting.keys(), ...this.running.keys()])) {
        const n = this.heldBy(id);
        held.set(id, n);
        total += n;
      }
      // One endpoint's share at most is looked at per claim: a claim's cost is the rows it reads.
      const room = Math.min(this.slots * HOLD_PER_SLOT - total, perEndpoint);
      if (room <= 0) return;
      const now = this.deps.clock();
      const lease = now + LEASE_MS;
      const { finished, released } = this.takeOutcomes();
      const result = await this.deps.store
        .write(async (tx) => ({
          ...(await this.recordIn(tx, finished, released, now)),
          ...(await claimDue(tx, this.deps.engine, now, lease, { total: room, perEndpoint, held })),
        }))
        .catch((err: unknown) => {
          this.putBack(finished, released);
          this.gather();
          throw err;
        });
      const { claimed, more, skipped, recorded, disabled } = result;
      await this.recorded(finished, recorded, disabled);
      // All that was due is taken, unless some was passed over.
      if (!more && !skipped) this.dueLikely = false;
      if (claimed.length === 0) return;
      this.progress++;
      this.pollWait = FIRST_POLL_MS;
      for (const c of claimed) {
        const list = this.waiting.get(c.endpoint.id);
        if (list) list.push({ claimed: c, lease });
        else this.waiting.set(c.endpoint.id, [{ claimed: c, lease }]);
      }
      this.startAttempts();
      if (!more) return;
    }
  }

  /**
   * How many attempts may start now: unlimited unless the process is busy serving (yieldTo),
   * then what is left of this second's share, refilled as time passes, with a timer to start
   * the rest once more is allowed.
   */
  private startsAllowed(): number {
    if (!this.deps.yieldTo?.busy() || this.stopping) return Number.POSITIVE_INFINITY;
    const rate = this.deps.busyStartsPerSecond ?? BUSY_STARTS_PER_SECOND;
    const now = performance.now();
    this.busyAllowance = Math.min(rate / 10, this.busyAllowance + ((now - this.busyRefilled) * rate) / 1000);
    this.busyRefilled = now;
    if (this.busyAllowance < 1 && !this.busyTimer) {
      this.busyTimer = setTimeout(
        () => {
          this.busyTimer = null;
          this.startAttempts();
        },
        Math.ceil(1000 / rate),
      ).unref();
    }
    return Math.floor(this.busyAllowance);
  }

  /** Starts what slots allow, oldest claim first for each endpoint. */
  private startAttempts(): void {
    let inFlight = this.inFlight.size;
    let allowed = this.startsAllowed();
    for (const [endpointId, list] of this.waiting) {
      while (
        list.length > 0 &&
        inFlight < this.slots &&
        allowed > 0 &&
        (this.running.get(endpointId) ?? 0) < this.cap
      ) {
        const held = list.shift()!;
        if (this.stopping || held.lease - this.deps.clock() < START_WITHIN_LEASE_MS) {
          this.released.push(held);
          this.progress++;
          this.gather();
          continue;
        }
        this.running.set(endpointId, (this.running.get(endpointId) ?? 0) + 1);
        inFlight++;
        allowed--;
        if (Number.isFinite(allowed)) this.busyAllowance--;
        const attempt = this.attempt(held).finally(() => {
          this.inFlight.delete(attempt);
          const left = (this.running.get(endpointId) ?? 1) - 1;
          if (left <= 0) this.running.delete(endpointId);
          else this.running.set(endpointId, left);
          this.startAttempts();
          // Half of the hold gone: claim the next share (if any is likely) while the rest is sent.
          if (this.heldBy(endpointId) <= (this.cap * HOLD_PER_SLOT) / 2) this.look();
        });
        this.inFlight.add(attempt);
      }
      if (list.length === 0) this.waiting.delete(endpointId);
    }
  }

  private async attempt(held: Held): Promise<void> {
    const { event, endpoint } = held.claimed;
    const now = this.deps.clock();
    let result: AttemptResult;
    if (endpoint.status !== 'enabled') {
      result = { ok: false, status: null, error: 'endpoint disabled' };
    } else {
      const body = payloadFor(event.payload, endpoint.contacts_masked === 1);
      const timestamp = Math.floor(now / 1000);
      const secrets = [endpoint.secret];
      if (endpoint.previous_secret && (endpoint.previous_secret_expires_at ?? 0) > now)
        secrets.push(endpoint.previous_secret);
      const headers = {
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secrets, event.id, timestamp, body),
        'content-type': 'application/json',
      };
      try {
        result = await (this.deps.send ?? postWebhook)(endpoint.url, body, headers, {
          allowPrivate: this.deps.allowPrivate,
        });
      } catch (err) {
        result = { ok: false, status: null, error: String((err as Error)?.message ?? err).slice(0, 500) };
      }
    }
    const at = this.deps.clock();
    this.finished.push({
      ...held,
      result,
      at,
      outcome: this.outcomeOf(held.claimed.delivery.attempts + 1, result, at),
    });
    this.gather();
  }

  /** Records what waits once a few more outcomes could join it, or at once when many wait. */
  private gather(): void {
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
  private putBack(finished: readonly Finished[], released: readonly Held[]): void {
    const now = this.deps.clock();
    const again = <T extends Held>(h: T) => (h.failures ?? 0) < 1 && h.lease > now;
    this.finished.unshift(...finished.filter(again).map((f) => ({ ...f, failures: (f.failures ?? 0) + 1 })));
    this.released.unshift(...released.filter(again).map((r) => ({ ...r, failures: (r.failures ?? 0) + 1 })));
  }

  private takeOutcomes(): { finished: Finished[]; released: Held[] } {
    if (this.gatherTimer) clearTimeout(this.gatherTimer);
    this.gatherTimer = null;
    const taken = { finished: this.finished, released: this.released };
    this.finished = [];
    this.released = [];
    return taken;
  }

  /** One transaction for every outcome and give-back waiting (no claim was coming to take them). */
  private record(): Promise<void> {
    if (this.recording) return this.recording.then(() => this.record());
    if (this.finished.length === 0 && this.released.length === 0) return Promise.resolve();
    const { finished, released } = this.takeOutcomes();
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
  private async recordIn(
    tx: Tx,
    finished: readonly Finished[],
    released: readonly Held[],
    now: number,
  ): Promise<{ recorded: Set<string>; disabled: WebhookEndpointTable[] }> {
    const recorded = new Set<string>();
    // Attempts that came to the same outcome under the same claim are one statement.
    const groups = new Map<string, Finished[]>();
    for (const f of finished) {
      const o = f.outcome;
      const key = JSON.stringify([f.lease, o.status, o.lastStatus, o.lastError, o.nextAttemptAt]);
      const group = groups.get(key);
      if (group) group.push(f);
      else groups.set(key, [f]);
    }
    for (const group of groups.values()) {
      const ids = group.map((f) => f.claimed.delivery.id);
      for (const id of await recordOutcomes(tx, ids, group[0]!.lease, group[0]!.outcome, now)) recorded.add(id);
    }
    const byLease = new Map<number, string[]>();
    for (const r of released) byLease.set(r.lease, [...(byLease.get(r.lease) ?? []), r.claimed.delivery.id]);
    for (const [lease, ids] of byLease) await releaseClaims(tx, ids, lease);
    const disabled: WebhookEndpointTable[] = [];
    // Endpoints in one order (their ids) in every transaction, so two never wait on each other.
    for (const own of byEndpoint(finished.filter((f) => recorded.has(f.claimed.delivery.id)))) {
      const gone = await this.noteEndpoint(tx, own);
      if (gone) disabled.push(gone);
    }
    return { recorded, disabled };
  }

  /** Once recorded: the metrics, and the email for each endpoint disabled. */
  private async recorded(
    finished: readonly Finished[],
    recorded: ReadonlySet<string>,
    disabled: readonly WebhookEndpointTable[],
  ): Promise<void> {
    for (const f of finished) {
      if (!recorded.has(f.claimed.delivery.id)) continue;
      const { status } = f.outcome;
      this.deps.onOutcome?.(status === 'delivered' ? 'delivered' : status === 'failed' ? 'failed' : 'retrying');
    }
    for (const d of disabled) await this.tellDisabled(d.workspace_id, d.id, d.url);
  }

  /**
   * An endpoint's recorded attempts, in the order they ended, as one attempt at a time would
   * have left it: a success ends a run of failures, a failure starts one; the endpoint is
   * disabled when its run of failures has lasted 3 days. Answers the endpoint it disabled.
   */
  private async noteEndpoint(tx: Tx, own: Finished[]): Promise<WebhookEndpointTable | undefined> {
    const { workspace_id: workspaceId, id } = own[0]!.claimed.endpoint;
    const last = own[own.length - 1]!;
    if (last.result.ok) {
      await noteAttempt(tx, workspaceId, id, true, last.at);
      return undefined;
    }
    let lastSuccess = own.length - 1;
    while (lastSuccess >= 0 && !own[lastSuccess]!.result.ok) lastSuccess--;
    // A success before the run of failures ended the run the endpoint had; the run starts anew.
    if (lastSuccess >= 0) await noteAttempt(tx, workspaceId, id, true, own[lastSuccess]!.at);
    await noteAttempt(tx, workspaceId, id, false, own[lastSuccess + 1]!.at);
    return disableIfFailingSince(
      tx,
      workspaceId,
      id,
      last.at - FAILING_DISABLE_MS,
      'every delivery failed for 3 days',
      last.at,
    );
  }

  /** Delivered; or due again after the schedule's next step; or, past its last, failed. */
  private outcomeOf(attempts: number, result: AttemptResult, now: number): AttemptOutcome {
    if (result.ok) return { status: 'delivered', lastStatus: result.status, lastError: null, nextAttemptAt: null };
    const wait = this.deps.retrySchedule[attempts - 1];
    return wait === undefined
      ? { status: 'failed', lastStatus: result.status, lastError: result.error, nextAttemptAt: null }
      : { status: 'pending', lastStatus: result.status, lastError: result.error, nextAttemptAt: now + wait * 1000 };
  }

  private async tellDisabled(workspaceId: string, id: string, url: string): Promise<void> {
    this.deps.log?.info({ webhook: id }, 'webhook endpoint disabled: every delivery failed for 3 days');
    try {
      await emailKeyManagers(this.deps.store, this.deps.clock, this.deps.mail, workspaceId, (to) => ({
        to,
        subject: `Webhook endpoint ${url} was disabled`,
        text: [
          `Every delivery to the webhook endpoint ${url} (${id}) has failed for 3 days, so it was disabled.`,
          '',
          "Its deliveries are listed on its page in the workspace's developer settings (Webhooks).",
          `When the receiver works again, enable the endpoint there (or run: venue-api webhooks enable ${id})`,
          'and resend the deliveries it missed.',
        ].join('\n'),
      }));
    } catch (err) {
      this.deps.log?.warn({ err, webhook: id }, 'emailing about a disabled webhook endpoint failed');
    }
  }
}

/** Attempts grouped by endpoint, each group in the order its attempts ended. */
function byEndpoint(finished: readonly Finished[]): Finished[][] {
  const groups = new Map<string, Finished[]>();
  for (const f of finished) {
    const group = groups.get(f.claimed.endpoint.id);
    if (group) group.push(f);
    else groups.set(f.claimed.endpoint.id, [f]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}
