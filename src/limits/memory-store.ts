import { MINUTE_MS } from '../lib/time.ts';
import type { DailyCounterRepo, UnsavedCounts } from './daily-counter.repo.ts';
import { LimitEvents, type CheckState, type Consumption, type LimitStore } from './limit-store.ts';
import { counterId, LIMITS, windowOf, type LimitCheck } from './limits.ts';

/** The little of pino the limit stores use, so they stay free of Fastify. */
export interface LimitLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface MemoryStoreOptions {
  events?: LimitEvents;
  /** Where daily counts are kept so they survive a restart; none for a pure fallback. */
  daily?: DailyCounterRepo;
  flushMs?: number;
  log?: LimitLog;
}

interface Counter {
  count: number;
  resetAt: number;
}

/**
 * Limits counted in this process: the store of a single server (the SQLite default), and
 * within the Redis store the counts its process knows, which answer while Redis is away.
 * JavaScript runs one consume at a time, so checking and
 * counting in one synchronous pass is already atomic.
 */
export class MemoryLimitStore implements LimitStore {
  readonly backend = 'memory' as const;
  readonly degraded = false;
  readonly events: LimitEvents;
  private readonly counters = new Map<string, Counter>();
  /** Daily counts not yet written: counter id -> its day and the increments since the last flush. */
  private unsaved: UnsavedCounts = new Map();
  private timer: NodeJS.Timeout | null = null;
  /** Flushes run one after another, so close() waits for one the timer started. */
  private flushing: Promise<void> = Promise.resolve();
  private nextSweep = 0;
  private latest = 0;

  constructor(private readonly options: MemoryStoreOptions = {}) {
    this.events = options.events ?? new LimitEvents();
  }

  /** Loads today's daily counts (SPEC: daily budgets survive a restart) and starts flushing. */
  async start(now: number): Promise<void> {
    if (!this.options.daily) return;
    await this.loadDaily(now);
    this.timer = setInterval(() => void this.flush(), this.options.flushMs ?? 5_000);
    this.timer.unref();
  }

  /**
   * Raises today's daily counts to the database's, which hold every process's saved
   * increments: how processes share a day while Redis is away, and what Redis is raised
   * to when it comes back empty.
   */
  async loadDaily(now: number): Promise<void> {
    const daily = this.options.daily;
    if (!daily) return;
    this.latest = Math.max(this.latest, now);
    const { start, resetAt } = windowOf('day', now);
    for (const row of await daily.load(start)) this.raise(row.counterId, row.count, resetAt);
  }

  consumeNow(checks: readonly LimitCheck[], now: number): Consumption {
    this.advance(now);
    const ids = checks.map((check) => counterId(check, now));
    const states: CheckState[] = checks.map((check, i) => ({
      check,
      count: this.counters.get(ids[i]!.id)?.count ?? 0,
      resetAt: ids[i]!.resetAt,
    }));
    const allowed = states.every((s) => s.count < s.check.max);
    if (!allowed) return { allowed, states };
    states.forEach((s, i) => {
      if (s.check.cost === 0) return;
      const { id, start, resetAt } = ids[i]!;
      const counter = this.counters.get(id) ?? { count: 0, resetAt };
      counter.count += s.check.cost;
      this.counters.set(id, counter);
      s.count = counter.count;
      this.keepDaily(s.check, id, start);
    });
    return { allowed, states };
  }

  /**
   * Takes what a shared store answered (`ids` as counterId gave them) as the counts this
   * process knows, so a fallback starts from them; its counted daily increments are kept
   * for the database like this store's own. Never lowers a count: within a window counts
   * only grow, and a lower figure means the shared store lost some.
   */
  adopt(result: Consumption, ids: readonly { id: string; start: number }[], now: number): void {
    this.advance(now);
    result.states.forEach((s, i) => {
      const { id, start } = ids[i]!;
      this.raise(id, s.count, s.resetAt);
      if (result.allowed && s.check.cost > 0) this.keepDaily(s.check, id, start);
    });
  }

  countOf(id: string): number {
    return this.counters.get(id)?.count ?? 0;
  }

  /** Every count this process knows whose window has not ended: counter id, count, window end. */
  *known(now: number): Generator<[id: string, count: number, resetAt: number]> {
    for (const [id, { count, resetAt }] of this.counters) if (resetAt > now) yield [id, count, resetAt];
  }

  async consume(checks: readonly LimitCheck[], now: number): Promise<Consumption> {
    return this.consumeNow(checks, now);
  }

  /** Writes the daily increments made since the last flush; kept for the next try on failure. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const daily = this.options.daily;
    if (!daily || this.unsaved.size === 0) return;
    const batch = this.unsaved;
    this.unsaved = new Map();
    try {
      await daily.add(batch, windowOf('day', this.latest).start);
    } catch (err) {
      for (const [id, { windowStart, count }] of batch) {
        const entry = this.unsaved.get(id) ?? { windowStart, count: 0 };
        entry.count += count;
        this.unsaved.set(id, entry);
      }
      this.options.log?.warn({ err }, 'limit store: could not save daily counts; will retry');
    }
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private raise(id: string, count: number, resetAt: number): void {
    if (count <= 0) return;
    const counter = this.counters.get(id);
    if (!counter) this.counters.set(id, { count, resetAt });
    else if (counter.count < count) counter.count = count;
  }

  private keepDaily(check: LimitCheck, id: string, windowStart: number): void {
    if (!this.options.daily || LIMITS[check.name].window !== 'day') return;
    const entry = this.unsaved.get(id) ?? { windowStart, count: 0 };
    entry.count += check.cost;
    this.unsaved.set(id, entry);
  }

  /** Notes the latest instant seen and forgets counters whose window is over, once a minute at most. */
  private advance(now: number): void {
    this.latest = Math.max(this.latest, now);
    if (now < this.nextSweep) return;
    for (const [id, counter] of this.counters) if (counter.resetAt <= now) this.counters.delete(id);
    this.nextSweep = now + MINUTE_MS;
  }
}
