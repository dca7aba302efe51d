import { unavailableReason } from '../db/unavailable.ts';

interface Log {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * A periodic job's failures while the database cannot serve are logged once when they begin
 * and once when the job works again, not a stack trace at every try; other failures each time.
 */
export class OutageLog {
  private since: number | null = null;

  constructor(
    private readonly log: Log | undefined,
    private readonly what: string,
  ) {}

  failed(err: unknown, context: object = {}): void {
    const reason = unavailableReason(err);
    if (reason === null) {
      this.log?.warn({ err, ...context }, `${this.what} failed`);
      return;
    }
    if (this.since !== null) return;
    this.since = Date.now();
    this.log?.warn(
      { reason, error: String((err as Error)?.message ?? err), ...context },
      `${this.what} failed: the database cannot serve; retrying quietly until it can`,
    );
  }

  succeeded(): void {
    if (this.since === null) return;
    this.log?.info({ down_ms: Date.now() - this.since }, `${this.what} works again`);
    this.since = null;
  }
}
