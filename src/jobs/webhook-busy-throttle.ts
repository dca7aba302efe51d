import { performance } from 'node:perf_hooks';
import type { WebhookWorkerDeps } from './webhook-worker-deps.ts';

/**
 * Attempts a busy process still starts a second: the queue keeps moving, at a small share of
 * its CPU (each attempt is a request to the receiver and a share of a transaction recording it).
 */
export const BUSY_STARTS_PER_SECOND = 20;

/** The rate at which the webhook worker starts attempts while its process is busy serving (`yieldTo`). */
export class BusyThrottle {
  /** While busy: starts allowed now, and the timer that starts more once they are used. */
  private allowance = 0;
  private refilled = 0;
  private timer: NodeJS.Timeout | null = null;

  /** `startMore` is called once more starts are allowed after they ran out. */
  constructor(
    private readonly deps: Pick<WebhookWorkerDeps, 'yieldTo' | 'busyStartsPerSecond'>,
    private readonly startMore: () => void,
  ) {}

  /**
   * How many attempts may start now: unlimited unless the process is busy serving (yieldTo),
   * then what is left of this second's share, refilled as time passes, with a timer to start
   * the rest once more is allowed.
   */
  startsAllowed(): number {
    if (!this.deps.yieldTo?.busy()) return Number.POSITIVE_INFINITY;
    const rate = this.deps.busyStartsPerSecond ?? BUSY_STARTS_PER_SECOND;
    const now = performance.now();
    this.allowance = Math.min(rate / 10, this.allowance + ((now - this.refilled) * rate) / 1000);
    this.refilled = now;
    if (this.allowance < 1 && !this.timer) {
      this.timer = setTimeout(
        () => {
          this.timer = null;
          this.startMore();
        },
        Math.ceil(1000 / rate),
      ).unref();
    }
    return Math.floor(this.allowance);
  }

  /** An attempt started under a finite allowance. */
  spend(): void {
    this.allowance--;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
