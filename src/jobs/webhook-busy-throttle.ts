import { performance } from 'node:perf_hooks';
import type { WebhookWorkerDeps } from './webhook-worker-deps.ts';

/**
 * Attempts a busy process still starts a second: the queue keeps moving, at a small share of
 * its CPU (each attempt is a request to the receiver and a share of a transaction recording it).
 */
export const BUSY_STARTS_PER_SECOND = 20;

/**
 * The rate at which the webhook worker starts attempts, or makes events' deliveries, while its
 * process is busy serving (`yieldTo`): one throttle for each.
 */
export class BusyThrottle {
  /** While busy: starts allowed now, and the timer that starts more once they are used. */
  private allowance = 0;
  private refilled = 0;
  private timer: NodeJS.Timeout | null = null;

  /**
   * `startMore` is called once more starts are allowed after they ran out. `seconds`: while
   * busy, starts are allowed in batches of that many seconds' share, none until a batch has
   * built up (attempts one at a time, events' deliveries a second's worth in one transaction).
   */
  constructor(
    private readonly deps: Pick<WebhookWorkerDeps, 'yieldTo' | 'busyStartsPerSecond'>,
    private readonly startMore: () => void,
    private readonly seconds = 0,
  ) {}

  /**
   * How many may start now: unlimited unless the process is busy serving (yieldTo), then what
   * is left of the share built up since, once it makes a batch, with a timer to start more
   * once it does.
   */
  startsAllowed(): number {
    if (!this.deps.yieldTo?.busy()) return Number.POSITIVE_INFINITY;
    const rate = this.deps.busyStartsPerSecond ?? BUSY_STARTS_PER_SECOND;
    const batch = Math.max(1, rate * this.seconds);
    const now = performance.now();
    // A tenth of a second's share may build up beyond the batch, so starts spread over it.
    const most = Math.max(batch, rate / 10);
    this.allowance = Math.min(most, this.allowance + ((now - this.refilled) * rate) / 1000);
    this.refilled = now;
    if (this.allowance < batch) {
      if (!this.timer)
        this.timer = setTimeout(
          () => {
            this.timer = null;
            this.startMore();
          },
          Math.ceil(((batch - this.allowance) * 1000) / rate),
        ).unref();
      return 0;
    }
    return Math.floor(this.allowance);
  }

  /** Attempts started (or events taken) under a finite allowance. */
  spend(n = 1): void {
    this.allowance -= n;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
