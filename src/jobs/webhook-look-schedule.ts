import { nextDue } from '../resources/webhooks/webhook-delivery.repo.ts';
import { eventsWaiting } from '../resources/webhooks/webhook-fan-out.repo.ts';
import type { WebhookWorkerDeps } from './webhook-worker-deps.ts';

/** After this process writes deliveries, the claim waits this long for others to take with them. */
const WAKE_MS = 10;
/** The first poll after work; each empty poll doubles the wait, up to `pollMs`. */
const FIRST_POLL_MS = 100;

export interface LookHooks {
  /** Started and not stopping: polls are made. */
  running(): boolean;
  /** Look for due deliveries now. */
  poke(): void;
  /** Whether an endpoint holds little enough that deliveries written for it are worth a claim of their own. */
  wantsMore(endpointId: string): boolean;
  /** Whether the worker may make events' deliveries now (not while busy with its share made). */
  makesEvents(): boolean;
}

/**
 * When the webhook worker looks for work besides an attempt's end: a moment after this process
 * writes deliveries, and otherwise a poll with a read (no transaction), sooner after work and
 * less often the longer it finds none.
 */
export class LookSchedule {
  private pollTimer: NodeJS.Timeout | null = null;
  private pollWait = FIRST_POLL_MS;
  private wakeTimer: NodeJS.Timeout | null = null;
  /** Endpoints with deliveries written in this process since the last wake. */
  private readonly told = new Set<string>();
  /** Events put in change-log rows in this process since the last wake: their deliveries are to be made. */
  private eventsTold = false;

  constructor(
    private readonly deps: Pick<WebhookWorkerDeps, 'store' | 'clock' | 'log' | 'pollMs'>,
    private readonly hooks: LookHooks,
  ) {}

  /**
   * Deliveries (or, `events`, events to make deliveries of) were written in this process:
   * claim them once their transaction can have committed. Those of an endpoint holding more
   * than half its share wait for the claim its next attempts make, so a busy endpoint's
   * stream of writes is claimed in large takes.
   */
  wake(endpointIds: readonly string[], events = false): void {
    for (const id of endpointIds) this.told.add(id);
    if (events) this.eventsTold = true;
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      const waiting = this.eventsTold || [...this.told].some((id) => this.hooks.wantsMore(id));
      this.told.clear();
      this.eventsTold = false;
      if (waiting) this.hooks.poke();
    }, WAKE_MS).unref();
  }

  /** A claim found work: the next poll comes soon again. */
  foundWork(): void {
    this.pollWait = FIRST_POLL_MS;
  }

  /** The next look when nothing prompts one: a read first, a claim only when something is due. */
  schedulePoll(): void {
    if (!this.hooks.running()) return;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    const wait = Math.min(this.pollWait, this.deps.pollMs ?? 2_000);
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      this.poll().catch((err) => {
        this.deps.log?.warn({ err }, 'looking for webhook deliveries failed');
        // The database may be back by the next poll; events other processes write are found only so.
        this.schedulePoll();
      });
    }, wait).unref();
  }

  /**
   * The wait doubles on every poll, one that pokes too: a claim that takes something resets it
   * (foundWork), and one that takes nothing (what is due belongs to endpoints holding their
   * fill) must not be asked again every FIRST_POLL_MS while they send, each time reading past
   * the whole queue.
   */
  private async poll(): Promise<void> {
    if (!this.hooks.running()) return;
    const now = this.deps.clock();
    // An event waiting in a change-log row is work now, when this process may make its
    // deliveries (while it is busy, the throttle pokes once it may).
    const events = this.hooks.makesEvents() && (await eventsWaiting(this.deps.store.db));
    const due = events ? now : await nextDue(this.deps.store.db, now);
    this.pollWait = Math.min(this.pollWait * 2, this.deps.pollMs ?? 2_000);
    if (due !== null && due <= now) {
      this.hooks.poke();
      return;
    }
    if (due !== null) this.pollWait = Math.max(1, Math.min(this.pollWait, due - now));
    this.schedulePoll();
  }

  stop(): void {
    for (const timer of [this.pollTimer, this.wakeTimer]) if (timer) clearTimeout(timer);
    this.pollTimer = null;
    this.wakeTimer = null;
  }
}
