import type { RequestLogTable } from '../db/tables/activity.ts';
import { unavailableReason } from '../db/unavailable.ts';

/**
 * The rows waiting while the database cannot take them; past it, new rows are dropped and
 * counted. A row without bodies is a few hundred bytes and one with both at most 32 KiB, so
 * this is tens of MB in the worst case: minutes of a busy process's traffic, never the process.
 */
const MAX_PENDING = 20_000;

export interface RequestLogWriterOptions {
  /** How often rows are written (ms). */
  flushMs?: number;
  /** Rows that start a write before the timer does. */
  batch?: number;
  maxPending?: number;
  /** A write failed; the rows are kept when the database could not serve, dropped when it refused them. */
  onError?: (err: unknown) => void;
  onFlushed?: () => void;
  onDropped?: (rows: number) => void;
}

/**
 * Writes the request log in batches off the request path (DECISIONS "Request log"): a request
 * costs one push onto an array, the database sees one transaction every quarter of a second
 * or 250 rows, small enough that SQLite's synchronous write never holds the event loop long.
 * One write runs at a time; a failed one goes back to the front while the database cannot serve.
 */
export class RequestLogWriter {
  private pending: RequestLogTable[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private readonly flushMs: number;
  private readonly batch: number;
  private readonly maxPending: number;

  /** `save` writes one batch in one transaction (insertRequestRows in the app). */
  constructor(
    private readonly save: (rows: RequestLogTable[]) => Promise<void>,
    private readonly options: RequestLogWriterOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 250;
    this.batch = options.batch ?? 250;
    this.maxPending = options.maxPending ?? MAX_PENDING;
  }

  add(row: RequestLogTable): void {
    if (this.pending.length >= this.maxPending) {
      this.options.onDropped?.(1);
      return;
    }
    this.pending.push(row);
    if (this.pending.length >= this.batch && !this.writing) void this.flush();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.flushMs).unref();
  }

  /** Stops the timer and writes what is left (a closing server). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** Writes what is pending now; resolves when that write ended, well or not (errors go to onError). */
  flush(): Promise<void> {
    if (this.writing) return this.writing.then(() => this.flush());
    if (this.pending.length === 0) return Promise.resolve();
    const rows = this.pending;
    this.pending = [];
    this.writing = this.write(rows).finally(() => {
      this.writing = null;
    });
    return this.writing;
  }

  private async write(rows: RequestLogTable[]): Promise<void> {
    try {
      await this.save(rows);
      this.options.onFlushed?.();
    } catch (err) {
      this.options.onError?.(err);
      if (!unavailableReason(err)) {
        this.options.onDropped?.(rows.length);
        return;
      }
      // Back to the front, in order, within the bound: the newest are the ones dropped.
      const kept = [...rows, ...this.pending];
      this.pending = kept.slice(0, this.maxPending);
      if (kept.length > this.maxPending) this.options.onDropped?.(kept.length - this.maxPending);
    }
  }
}
