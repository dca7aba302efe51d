import { claimDue, onDeliveriesWritten } from '../resources/webhooks/webhook-delivery.repo.ts';
import { fanOutEvents, onEventsWritten } from '../resources/webhooks/webhook-fan-out.repo.ts';
import { attemptDelivery, type Held } from './webhook-attempt.ts';
import { BusyThrottle } from './webhook-busy-throttle.ts';
import { LookSchedule } from './webhook-look-schedule.ts';
import { OutcomeRecorder } from './webhook-outcomes.ts';
import { ATTEMPT_TIMEOUT_MS } from './webhook-sender.ts';
import type { WebhookWorkerDeps } from './webhook-worker-deps.ts';

/** A claim outlives the longest attempt, with room for writing its outcome. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 20_000;
/** A held delivery is started only with this much of its lease left: the attempt and its recording. */
const START_WITHIN_LEASE_MS = ATTEMPT_TIMEOUT_MS + 5_000;
/** Deliveries of one endpoint held at once, as a multiple of its cap: the next claim's worth waits ready. */
const HOLD_PER_SLOT = 8;

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
 * A customer's event rides in its change-log row (customer-event.service.ts); each claim's
 * transaction first makes the deliveries of waiting events, as many as the deliveries the
 * process has room to hold (webhook-fan-out.repo.ts); while the API is busy, 20 events a
 * second, a second's share at a time, so events wait in their rows and the writes pay for
 * none of their deliveries.
 *
 * What it costs the API is its transactions (on SQLite each joins the one writer's group
 * commit; on PostgreSQL each is round trips and a commit), so they are few and large: one
 * claim takes many deliveries, held in this process until a slot to their endpoint frees;
 * outcomes are gathered for a few milliseconds and recorded together in one transaction. It
 * looks for work when this process writes deliveries (after a moment, so a burst is claimed
 * at once), when its hold runs low, and otherwise polls with a read (no transaction), sooner
 * after work and less often the longer it finds none.
 */
export class WebhookDeliveryWorker {
  private started = false;
  private stopping = false;
  private unsubscribe: (() => void) | null = null;
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
  private readonly outcomes: OutcomeRecorder;
  private readonly looks: LookSchedule;
  private readonly throttle: BusyThrottle;
  /** Events made into deliveries: while the process is busy, no faster than attempts start. */
  private readonly fanOuts: BusyThrottle;

  constructor(private readonly deps: WebhookWorkerDeps) {
    this.outcomes = new OutcomeRecorder(deps);
    this.looks = new LookSchedule(deps, {
      running: () => this.started && !this.stopping,
      poke: () => this.poke(),
      wantsMore: (endpointId) => this.holdsHalfOrLess(endpointId),
      makesEvents: () => this.mayMakeEvents(),
    });
    this.throttle = new BusyThrottle(deps, () => this.startAttempts());
    // A second's share at a time: one claim's transaction makes them, not one each.
    this.fanOuts = new BusyThrottle(deps, () => this.poke(), 1);
  }

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
    const fromDeliveries = onDeliveriesWritten((endpointIds) => {
      if (this.stopping) return;
      this.dueLikely = true;
      this.looks.wake(endpointIds);
    });
    const fromEvents = onEventsWritten(() => {
      // While busy with its share of events made, the throttle's timer looks once more may be.
      if (this.stopping || !this.mayMakeEvents()) return;
      this.dueLikely = true;
      this.looks.wake([], true);
    });
    this.unsubscribe = () => {
      fromDeliveries();
      fromEvents();
    };
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
        } else this.looks.schedulePoll();
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
    this.looks.stop();
    this.throttle.stop();
    this.fanOuts.stop();
    await this.filling;
    for (const held of this.waiting.values()) this.outcomes.giveBack(held);
    this.waiting.clear();
    await this.settle();
  }

  /** Waits until no claim, attempt or recording is under way or waiting. */
  private async settle(): Promise<void> {
    for (;;) {
      if (this.filling) await this.filling;
      else if (this.inFlight.size > 0) await Promise.all(this.inFlight);
      else if (this.outcomes.pending) await this.outcomes.record();
      else return;
    }
  }

  /** Whether events' deliveries may be made now: not while busy with this second's share made. */
  private mayMakeEvents(): boolean {
    return this.fanOuts.startsAllowed() >= 1;
  }

  private heldBy(endpointId: string): number {
    return (this.waiting.get(endpointId)?.length ?? 0) + (this.running.get(endpointId) ?? 0);
  }

  private holdsHalfOrLess(endpointId: string): boolean {
    return this.heldBy(endpointId) <= (this.cap * HOLD_PER_SLOT) / 2;
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
      const { finished, released } = this.outcomes.take();
      const allowed = this.stopping ? 0 : this.fanOuts.startsAllowed();
      const events = Math.min(room, allowed);
      const result = await this.deps.store
        .write(async (tx) => ({
          ...(await this.outcomes.recordIn(tx, finished, released, now)),
          made: await fanOutEvents(tx, this.deps.engine, events),
          ...(await claimDue(tx, this.deps.engine, now, lease, { total: room, perEndpoint, held })),
        }))
        .catch((err: unknown) => {
          this.outcomes.putBack(finished, released);
          this.outcomes.gather();
          throw err;
        });
      const { claimed, more, skipped, recorded, disabled, made } = result;
      await this.outcomes.recorded(finished, recorded, disabled);
      if (made.unreadable.length > 0)
        this.deps.log?.warn({ changes: made.unreadable }, 'webhook events that are not JSON were dropped');
      if (Number.isFinite(allowed)) this.fanOuts.spend(made.taken);
      // As many events as asked for were made into deliveries: more may wait.
      const moreEvents = events > 0 && made.taken === events;
      // All that was due is taken, unless some was passed over.
      if (!more && !skipped && !moreEvents) this.dueLikely = false;
      if (made.taken > 0) this.progress++;
      if (claimed.length === 0) {
        // More events wait and may be made now (not while busy with its share made).
        if (moreEvents && this.mayMakeEvents()) continue;
        return;
      }
      this.progress++;
      this.looks.foundWork();
      for (const c of claimed) {
        const list = this.waiting.get(c.endpoint.id);
        if (list) list.push({ claimed: c, lease });
        else this.waiting.set(c.endpoint.id, [{ claimed: c, lease }]);
      }
      this.startAttempts();
      if (!more && !moreEvents) return;
    }
  }

  /** Starts what slots allow, oldest claim first for each endpoint. */
  private startAttempts(): void {
    let inFlight = this.inFlight.size;
    // A stopping worker starts nothing, so the busy rate does not pace its give-backs.
    let allowed = this.stopping ? Number.POSITIVE_INFINITY : this.throttle.startsAllowed();
    for (const [endpointId, list] of this.waiting) {
      while (
        list.length > 0 &&
        inFlight < this.slots &&
        allowed > 0 &&
        (this.running.get(endpointId) ?? 0) < this.cap
      ) {
        const held = list.shift()!;
        if (this.stopping || held.lease - this.deps.clock() < START_WITHIN_LEASE_MS) {
          this.outcomes.giveBack([held]);
          this.progress++;
          this.outcomes.gather();
          continue;
        }
        this.running.set(endpointId, (this.running.get(endpointId) ?? 0) + 1);
        inFlight++;
        allowed--;
        if (Number.isFinite(allowed)) this.throttle.spend();
        const attempt = this.attempt(held).finally(() => {
          this.inFlight.delete(attempt);
          const left = (this.running.get(endpointId) ?? 1) - 1;
          if (left <= 0) this.running.delete(endpointId);
          else this.running.set(endpointId, left);
          this.startAttempts();
          // Half of the hold gone: claim the next share (if any is likely) while the rest is sent.
          if (this.holdsHalfOrLess(endpointId)) this.look();
        });
        this.inFlight.add(attempt);
      }
      if (list.length === 0) this.waiting.delete(endpointId);
    }
  }

  private async attempt(held: Held): Promise<void> {
    this.outcomes.finish(await attemptDelivery(this.deps, held));
  }
}
