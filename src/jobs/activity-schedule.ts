import { runActivityCheck, type ActivityCheckDeps, type ActivityCheckResult } from './activity-check.ts';
import { HOUR_MS } from './activity.repo.ts';
import { inSpan } from '../lib/trace.ts';

export interface ScheduleOptions {
  /** Called first: writes this process's buffered activity (the tracker's flush). */
  beforeRun?: () => Promise<void>;
  /**
   * Wait after the hour turns, so every process has flushed the hour just ended
   * (trackers flush every 10 s). Also the delay of the catch-up run at start.
   */
  graceMs?: number;
  onResult?: (result: ActivityCheckResult) => void;
  /** After a run that failed, the wait before the next try (default 5 minutes), not the next hour. */
  retryMs?: number;
}

/**
 * Runs the check once per clock hour from inside the server (SPEC "Limits" 5). Every process
 * starts one; the job lock and the hour claim make one of them do the work each hour.
 * A run soon after start catches an hour missed while every process was down; a run that
 * failed (the database down) is tried again within minutes, its hour's claim still open.
 */
export class HourlyActivityCheck {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private readonly graceMs: number;

  constructor(
    private readonly deps: ActivityCheckDeps,
    private readonly options: ScheduleOptions = {},
  ) {
    this.graceMs = options.graceMs ?? 30_000;
  }

  start(): void {
    if (this.timer) return;
    this.schedule(this.graceMs);
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => {
      this.running = inSpan('job activity-check', {}, () => this.tick()).then((ran) => {
        if (!this.timer) return;
        const now = this.deps.clock();
        const nextHour = Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS + this.graceMs - now;
        this.schedule(ran ? nextHour : Math.min(nextHour, this.options.retryMs ?? 300_000));
      });
    }, delay).unref();
  }

  /** Answers whether the check ran to its end. */
  private async tick(): Promise<boolean> {
    try {
      await this.options.beforeRun?.();
      const result = await runActivityCheck(this.deps, { hourly: true });
      this.options.onResult?.(result);
      return true;
    } catch (err) {
      this.deps.log?.error({ err }, 'unusual-activity check failed; retried in a few minutes');
      return false;
    }
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
