import { randomUUID } from 'node:crypto';
import { EXPIRY_SLACK_MS } from './redis-scripts.ts';

/** One run of RETURN_LUA: its keys (the token first) and arguments, as sent. */
export interface ReturnBatch {
  keys: string[];
  args: number[];
}

/** Counters per script run: a few thousand arguments, one short pause of Redis. */
const BATCH = 500;

/**
 * What this process owes Redis after counting on its own: the increments it admitted while
 * Redis was away, and the counts it knows, which a Redis restarted empty has lost. Batches
 * are kept until Redis acknowledges them and re-sent unchanged, so an answer lost to a
 * timeout never adds the same increments twice.
 */
export class OutageLedger {
  /** Counter id -> increments admitted here that Redis has not seen, and its window's end. */
  private added = new Map<string, { count: number; resetAt: number }>();
  private pending: ReturnBatch[] = [];
  private readonly owner = randomUUID();
  private made = 0;

  constructor(private readonly prefix: string) {}

  add(id: string, cost: number, resetAt: number): void {
    const entry = this.added.get(id) ?? { count: 0, resetAt };
    entry.count += cost;
    this.added.set(id, entry);
  }

  /** Whether anything admitted here is still to be handed back. */
  get owing(): boolean {
    return this.added.size > 0 || this.pending.length > 0;
  }

  /**
   * Plans the hand-back of every count this process knows (`known`: id, count, window end),
   * with what it admitted on its own added to each. Forgets what it admitted meanwhile in
   * windows that have ended.
   */
  planAll(known: Iterable<[id: string, count: number, resetAt: number]>, now: number): void {
    const entries: [string, number, number, number][] = [];
    for (const [id, count, resetAt] of known) entries.push([id, this.added.get(id)?.count ?? 0, count, resetAt]);
    this.plan(entries, now);
  }

  /** Plans the hand-back of only what was admitted since the last plan (`countOf`: the count known here). */
  planAdded(countOf: (id: string) => number, now: number): void {
    this.plan(
      [...this.added].map(([id, { count, resetAt }]) => [id, count, countOf(id), resetAt]),
      now,
    );
  }

  /** The batch to send next, unchanged until it is acknowledged. */
  next(): ReturnBatch | undefined {
    return this.pending[0];
  }

  acknowledge(batch: ReturnBatch): void {
    if (this.pending[0] === batch) this.pending.shift();
  }

  /** Drops increments whose window has ended: Redis no longer needs them. */
  sweep(now: number): void {
    for (const [id, { resetAt }] of this.added) if (resetAt <= now) this.added.delete(id);
  }

  private plan(entries: [id: string, add: number, floor: number, resetAt: number][], now: number): void {
    this.added = new Map();
    const live = entries.filter(([, add, floor, resetAt]) => resetAt > now && (add > 0 || floor > 0));
    for (let i = 0; i < live.length; i += BATCH) {
      const keys = [`${this.prefix}limits-returned:${this.owner}:${this.made++}`];
      const args = [0];
      for (const [id, add, floor, resetAt] of live.slice(i, i + BATCH)) {
        const ttl = resetAt - now + EXPIRY_SLACK_MS;
        keys.push(this.prefix + id);
        args.push(add, floor, ttl);
        args[0] = Math.max(args[0]!, ttl);
      }
      this.pending.push({ keys, args });
    }
  }
}
