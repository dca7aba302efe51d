import { runActivityCheck, type ActivityCheckDeps, type ActivityCheckResult } from './activity-check.ts';
import { HOUR_MS } from './activity.repo.ts';

export interface ScheduleOptions {
  /** Called first: writes this process's buffered activity (the tracker's flush). */
  beforeRun?: () => Promise<void>;
  /**
   * Wait after the hour turns, so every process has flushed the hour just ended
   * (trackers flush every 10 s). Also the delay of the catch-up run at start.
   */
  graceMs?: number;
  onResult?: (result: ActivityCheckResult) => void;
}

/**
 * Runs the check once per clock hour from inside the server (SPEC "Limits" 5). Every process
 * starts one; the job lock and the hour claim make one of them do the work each hour.
 * A run soon after start catches an hour missed while every process was down.
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
      this.running = this.tick().finally(() => {
        if (!this.timer) return;
        const now = this.deps.clock();
        this.schedule(Math.floor(now / HOUR_MS) * HOUR_MS + HOUR_MS + this.graceMs - now);
      });
    }, delay).unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.options.beforeRun?.();
      const result = await runActivityCheck(this.deps, { hourly: true });
      this.options.onResult?.(result);
    } catch (err) {
      this.deps.log?.error({ err }, 'unusual-activity check failed; retried next hour');
    }
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
