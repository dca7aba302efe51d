import type { Engine } from '../db/dialects/types.ts';
import type { KeyActivityHourTable, KeyCustomerReadTable } from '../db/schema.ts';
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

export interface TrackerOptions {
  /** How often buffered activity is written (ms). */
  flushMs?: number;
  /** Buffered customer sends that trigger an early flush, bounding memory. */
  maxBuffered?: number;
  onError?: (err: unknown) => void;
}

/**
 * Counts what live keys do, in memory, and writes it in batches, so tracking stays cheap
 * on the hot path. A request costs a few Map operations; the database sees
 * one upsert batch per table every flushMs, whatever the traffic.
 */
export class ActivityTracker {
  private buffer = new Map<string, KeyBuffer>();
  /** key id -> its latest request since the last flush, every key (the console's "last used"). */
  private lastUse = new Map<string, number>();
  private buffered = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly flushMs: number;
  private readonly maxBuffered: number;

  constructor(
    private readonly store: Writer,
    private readonly engine: Engine,
    private readonly clock: Clock,
    private readonly options: TrackerOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 10_000;
    this.maxBuffered = options.maxBuffered ?? 50_000;
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
    const customers = this.entry(keyId, workspaceId).customers;
    const now = this.clock();
    for (const id of customerIds) {
      if (!customers.has(id)) this.buffered++;
      customers.set(id, now);
    }
    if (this.buffered >= this.maxBuffered) void this.flush().catch((err) => this.options.onError?.(err));
  }

  /** Writes everything counted so far; concurrent calls run one after another. */
  flush(): Promise<void> {
    const run = this.flushing.catch(() => undefined).then(() => this.write());
    this.flushing = run;
    return run;
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
      await this.store.write(async (tx) => {
        if (hours.length > 0) await addHourlyRequests(tx, this.engine, hours);
        if (reads.length > 0) await markCustomersSent(tx, reads);
        if (used.size > 0) await markKeysUsed(tx, used);
      });
    } catch (err) {
      this.restore(taken);
      for (const [id, at] of used) this.lastUse.set(id, Math.max(at, this.lastUse.get(id) ?? 0));
      throw err;
    }
  }

  /** A failed write goes back into the buffer, so the next flush retries it. */
  private restore(taken: Map<string, KeyBuffer>): void {
    for (const [keyId, old] of taken) {
      const entry = this.entry(keyId, old.workspaceId);
      for (const [h, n] of old.hours) entry.hours.set(h, (entry.hours.get(h) ?? 0) + n);
      for (const [id, at] of old.customers) {
        if (!entry.customers.has(id)) this.buffered++;
        entry.customers.set(id, Math.max(at, entry.customers.get(id) ?? 0));
      }
    }
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.flush()
        .catch((err) => this.options.onError?.(err))
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, this.flushMs).unref();
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
