import type { Engine } from '../db/dialects/types.ts';
import type { KeyActivityHourTable, KeyCustomerReadTable } from '../db/tables/activity.ts';
import { unavailableReason } from '../db/unavailable.ts';
import type { Writer } from '../db/write.ts';
import type { Clock } from '../lib/time.ts';
import { markKeysUsed } from '../resources/keys/key.repo.ts';
import { addHourlyRequests, hourStart, markCustomersSent } from './activity.repo.ts';

interface KeyBuffer {
  workspaceId: string;
  /** hour_start → requests counted since the last flush. */
  hours: Map<number, number>;
  /** customer id → latest send since the last flush. */
  customers: Map<string, number>;
}

/**
 * The most (key, customer) rows the buffer holds while the database cannot take them; sends
 * of customers past it are dropped and counted (`onDropped`). A Map entry costs about 150
 * bytes, so this is some 30 MB: room for half an hour of a busy process reading 100 new
 * customers a second, which outlasts an outage anyone lets run, and no more, so an outage of
 * a day costs counts (the unusual-activity check undercounts), never the process.
 */
const MAX_BUFFERED_ROWS = 200_000;

/** The longest wait between flushes while they fail: the backoff doubles from flushMs up to this. */
export const MAX_BACKOFF_MS = 5 * 60_000;

export interface TrackerOptions {
  /** How often buffered activity is written (ms). */
  flushMs?: number;
  /** Buffered customer sends that trigger an early flush, so a walk over many customers writes them in parts. */
  maxBuffered?: number;
  /** The buffer's cap in (key, customer) rows; MAX_BUFFERED_ROWS unless a test says less. */
  maxRows?: number;
  onError?: (err: unknown) => void;
  /** A timed flush went through (after failures, the database serves again). */
  onFlushed?: () => void;
  /** Rows the tracker gave up on: sends past the cap, and batches the database refused outright. */
  onDropped?: (rows: number) => void;
}

export interface TrackerStats {
  /** (key, customer) rows waiting in memory. */
  buffered: number;
  /** Rows written (key-hours and key-customers), counted once their transaction was durable. */
  written: number;
  dropped: number;
  /** Flushes failed in a row; nonzero while the tracker backs off. */
  failures: number;
}

/**
 * Counts what live keys do, in memory, and writes it in batches, so tracking stays cheap
 * on the hot path. A request costs a few Map operations; the database sees
 * one upsert batch per table every flushMs, whatever the traffic.
 *
 * While the database cannot take the writes, a failed batch goes back into the buffer, one
 * flush at most is in flight, early flushes stop and the timer backs off; the buffer is
 * capped, so an outage costs counts, never memory.
 */
export class ActivityTracker {
  private buffer = new Map<string, KeyBuffer>();
  /** key id -> its latest request since the last flush, every key (the console's "last used"). */
  private lastUse = new Map<string, number>();
  private buffered = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The flush writing now, and the one callers asked for meanwhile: never more than these two. */
  private inFlight: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private failures = 0;
  private written = 0;
  private dropped = 0;
  private readonly flushMs: number;
  private readonly maxBuffered: number;
  private readonly maxRows: number;

  constructor(
    private readonly store: Writer,
    private readonly engine: Engine,
    private readonly clock: Clock,
    private readonly options: TrackerOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 10_000;
    this.maxRows = options.maxRows ?? MAX_BUFFERED_ROWS;
    this.maxBuffered = Math.min(options.maxBuffered ?? 50_000, this.maxRows);
  }

  private entry(keyId: string, workspaceId: string): KeyBuffer {
    let entry = this.buffer.get(keyId);
    if (!entry) {
      entry = { workspaceId, hours: new Map(), customers: new Map() };
      this.buffer.set(keyId, entry);
    }
    return entry;
  }

  request(keyId: string, workspaceId: string): void {
    const hours = this.entry(keyId, workspaceId).hours;
    const hour = hourStart(this.clock());
    hours.set(hour, (hours.get(hour) ?? 0) + 1);
  }

  /** A request by any key, test or live: only its time is kept, for the keys page. */
  used(keyId: string): void {
    this.lastUse.set(keyId, this.clock());
  }

  customersSent(keyId: string, workspaceId: string, customerIds: readonly string[]): void {
    if (customerIds.length === 0) return;
    const now = this.clock();
    let dropped = 0;
    for (const id of customerIds) if (!this.keep(keyId, workspaceId, id, now)) dropped++;
    this.drop(dropped);
    // Not while flushes fail: the timer's backoff decides when the next one runs.
    if (this.buffered >= this.maxBuffered && this.failures === 0 && !this.inFlight) this.flushQuietly();
  }

  /** Buffers one send, or says no when it would be a new row past the cap. */
  private keep(keyId: string, workspaceId: string, customerId: string, at: number): boolean {
    const known = this.buffer.get(keyId)?.customers;
    const previous = known?.get(customerId);
    if (previous === undefined) {
      if (this.buffered >= this.maxRows) return false;
      this.buffered++;
    }
    (known ?? this.entry(keyId, workspaceId).customers).set(customerId, Math.max(at, previous ?? 0));
    return true;
  }

  private drop(rows: number): void {
    if (rows === 0) return;
    this.dropped += rows;
    this.options.onDropped?.(rows);
  }

  stats(): TrackerStats {
    return { buffered: this.buffered, written: this.written, dropped: this.dropped, failures: this.failures };
  }

  /**
   * Writes everything counted so far. One flush runs at a time; a call while one runs gets a
   * second, shared by every such call, that starts when the first ends, so what was counted
   * before the call is in the batch it waits for.
   */
  flush(): Promise<void> {
    if (!this.inFlight) return this.run();
    this.queued ??= this.inFlight
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.run();
      });
    return this.queued;
  }

  private run(): Promise<void> {
    const running = this.write().finally(() => {
      if (this.inFlight === running) this.inFlight = null;
    });
    this.inFlight = running;
    return running;
  }

  private flushQuietly(): void {
    this.flush().catch((err) => this.options.onError?.(err));
  }

  private async write(): Promise<void> {
    const taken = this.buffer;
    const used = this.lastUse;
    this.buffer = new Map();
    this.lastUse = new Map();
    this.buffered = 0;
    const hours: KeyActivityHourTable[] = [];
    const reads: KeyCustomerReadTable[] = [];
    for (const [keyId, entry] of taken) {
      for (const [hour, requests] of entry.hours) {
        hours.push({ key_id: keyId, hour_start: hour, workspace_id: entry.workspaceId, requests });
      }
      for (const [customerId, at] of entry.customers) {
        reads.push({ key_id: keyId, customer_id: customerId, workspace_id: entry.workspaceId, last_seen_at: at });
      }
    }
    if (hours.length === 0 && reads.length === 0 && used.size === 0) return;
    try {
      // One transaction: a failed flush leaves nothing half-counted, so it can be retried.
      // storage.write resolves once the COMMIT is durable (its group's, on SQLite), so a batch
      // whose COMMIT failed rejects here and goes back into the buffer.
      await this.store.write(async (tx) => {
        if (hours.length > 0) await addHourlyRequests(tx, this.engine, hours);
        if (reads.length > 0) await markCustomersSent(tx, reads);
        if (used.size > 0) await markKeysUsed(tx, used);
      });
    } catch (err) {
      this.failures++;
      if (unavailableReason(err)) {
        this.restore(taken);
        for (const [id, at] of used) this.lastUse.set(id, Math.max(at, this.lastUse.get(id) ?? 0));
      } else {
        // Not an outage: the database refused this batch itself, and would refuse it again on
        // every retry, holding up every later count; it is given up and counted.
        this.drop(reads.length + hours.length);
      }
      throw err;
    }
    this.failures = 0;
    this.written += reads.length + hours.length;
  }

  /** A batch the database could not take goes back into the buffer, within the cap, so the next flush retries it. */
  private restore(taken: Map<string, KeyBuffer>): void {
    let dropped = 0;
    for (const [keyId, old] of taken) {
      const entry = this.entry(keyId, old.workspaceId);
      for (const [h, n] of old.hours) entry.hours.set(h, (entry.hours.get(h) ?? 0) + n);
      for (const [id, at] of old.customers) if (!this.keep(keyId, old.workspaceId, id, at)) dropped++;
    }
    this.drop(dropped);
  }

  /** The wait before the next timed flush: flushMs, doubled for each failure in a row, at most MAX_BACKOFF_MS. */
  private nextDelay(): number {
    if (this.failures === 0) return this.flushMs;
    return Math.min(this.flushMs * 2 ** Math.min(this.failures, 20), Math.max(MAX_BACKOFF_MS, this.flushMs));
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.flush()
        .then(
          () => this.options.onFlushed?.(),
          (err) => this.options.onError?.(err),
        )
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, this.nextDelay()).unref();
        });
    };
    this.timer = setTimeout(tick, this.flushMs).unref();
  }

  /**
   * Stops the timer and writes what is left (called when the app closes). A failed write
   * (a full disk) goes to onError when there is one: losing a few counts must not stop a close.
   */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const { onError } = this.options;
    await this.flush().catch((err) => {
      if (!onError) throw err;
      onError(err);
    });
  }
}
