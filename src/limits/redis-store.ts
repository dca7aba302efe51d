import { Redis } from 'ioredis';
import type { DailyCounterRepo } from './daily-counter.repo.ts';
import { LimitEvents, type CheckState, type Consumption, type LimitStore } from './limit-store.ts';
import { counterId, LIMITS, type LimitCheck } from './limits.ts';
import { MemoryLimitStore, type LimitLog } from './memory-store.ts';
import { OutageLedger } from './outage-ledger.ts';
import { CONSUME_LUA, EXPIRY_SLACK_MS, RETURN_LUA } from './redis-scripts.ts';

type ScriptCommand<T> = (numKeys: number, ...args: (string | number)[]) => Promise<T>;

export interface RedisStoreOptions {
  url: string;
  /** Prefix of every key written, so deployments (and test runs) can share one Redis. */
  prefix: string;
  events?: LimitEvents;
  log?: LimitLog;
  /** How long one limit check may wait for Redis before the fallback answers. */
  commandTimeoutMs?: number;
  /** Where daily counts are kept as well, so no Redis restart resets a day; none: Redis only. */
  daily?: DailyCounterRepo;
  /** How often daily counts are saved to the database, and read back while Redis is away (ms). */
  flushMs?: number;
  /** While Redis is away, how often it is tried again (ms). */
  probeMs?: number;
}

/**
 * Limits shared by every process using one Redis (REDIS_URL). This process remembers the
 * counts Redis last gave it; when Redis cannot be reached it goes on from them on its own,
 * says so in the log and the events, and once Redis answers again hands back what it
 * counted meanwhile before using Redis again. Daily counts are also saved to the database,
 * and Redis is raised to them at start and on every return, so a Redis that restarts empty
 * neither begins the minute nor the day again (docs/operations.md, "Limits when Redis is lost").
 */
export class RedisLimitStore implements LimitStore {
  readonly backend = 'redis' as const;
  readonly events: LimitEvents;
  private readonly redis: Redis;
  /** The counts this process knows: Redis's last answers, then its own while Redis is away. */
  private readonly local: MemoryLimitStore;
  private readonly ledger: OutageLedger;
  private readonly run: ScriptCommand<number[]>;
  private readonly handBack: ScriptCommand<number>;
  private readonly timer: NodeJS.Timeout;
  private inFallback = false;
  private recovering: Promise<void> | null = null;
  private lastShared = 0;
  private latest = 0;
  private closing = false;

  constructor(private readonly options: RedisStoreOptions) {
    this.events = options.events ?? new LimitEvents();
    this.local = new MemoryLimitStore({
      events: this.events,
      ...(options.daily ? { daily: options.daily } : {}),
      ...(options.flushMs ? { flushMs: options.flushMs } : {}),
      ...(options.log ? { log: options.log } : {}),
    });
    this.ledger = new OutageLedger(options.prefix);
    this.redis = new Redis(options.url, {
      // Fail at once rather than queue: the fallback answers while Redis is away.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(100 * times, 2_000),
    });
    this.redis.defineCommand('venueLimitConsume', { lua: CONSUME_LUA });
    this.redis.defineCommand('venueLimitReturn', { lua: RETURN_LUA });
    const commands = this.redis as unknown as Record<string, ScriptCommand<never>>;
    this.run = commands.venueLimitConsume!.bind(this.redis);
    this.handBack = commands.venueLimitReturn!.bind(this.redis);
    this.redis.on('ready', () => {
      if (this.inFallback) void this.recover();
    });
    this.redis.on('error', (err: Error) => this.enterFallback(err.message));
    this.redis.on('close', () => this.enterFallback('connection closed'));
    // A Redis that hangs keeps its connection up: only trying it tells when it answers again.
    this.timer = setInterval(() => {
      if (this.inFallback) void this.recover();
    }, options.probeMs ?? 1_000);
    this.timer.unref();
  }

  get degraded(): boolean {
    return this.inFallback;
  }

  /**
   * Loads today's daily counts from the database, waits (bounded) for the first connection
   * so a start does not begin in fallback, and raises Redis's daily counts to the
   * database's: a Redis restarted empty while no process ran does not begin the day again.
   */
  async start(now: number, waitMs = 2_000): Promise<void> {
    this.latest = Math.max(this.latest, now);
    await this.local.start(now);
    if (this.redis.status !== 'ready') {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        this.redis.once('ready', done);
      });
    }
    // Not answering yet: the daily counts are handed over with the rest once it does.
    if (this.redis.status !== 'ready') return this.enterFallback(`redis is ${this.redis.status}`);
    try {
      await this.handBackAll();
    } catch (err) {
      this.enterFallback((err as Error).message);
    }
  }

  async consume(checks: readonly LimitCheck[], now: number): Promise<Consumption> {
    this.latest = Math.max(this.latest, now);
    if (this.inFallback || this.redis.status !== 'ready') {
      this.enterFallback(`redis is ${this.redis.status}`);
      return this.countHere(checks, now, true);
    }
    const ids = checks.map((check) => counterId(check, now));
    const args: (string | number)[] = ids.map((c) => this.options.prefix + c.id);
    for (const [i, check] of checks.entries())
      args.push(check.max, check.cost, ids[i]!.resetAt - now + EXPIRY_SLACK_MS);
    let answer: number[];
    try {
      answer = await this.run(checks.length, ...args);
    } catch (err) {
      this.enterFallback((err as Error).message);
      // Redis may still run a command that timed out, so this one is not handed back as
      // an increment; it still counts in the floor it is raised to.
      return this.countHere(checks, now, false);
    }
    const [allowed, ...counts] = answer;
    const states: CheckState[] = checks.map((check, i) => ({ check, count: counts[i]!, resetAt: ids[i]!.resetAt }));
    const result = { allowed: allowed === 1, states };
    this.local.adopt(result, ids, now);
    return result;
  }

  async ping(): Promise<boolean> {
    if (this.redis.status !== 'ready') return false;
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /** Hands back what was counted here if Redis answers, saves the day's counts, disconnects. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await (this.inFallback ? this.recover() : this.recovering);
    this.closing = true;
    await this.local.close();
    try {
      if (this.redis.status === 'ready') await this.redis.quit();
      else this.redis.disconnect();
    } catch {
      this.redis.disconnect();
    }
  }

  /** Counts in this process; `certain`: Redis did not see the request, so the increments are owed to it. */
  private countHere(checks: readonly LimitCheck[], now: number, certain: boolean): Consumption {
    const result = this.local.consumeNow(checks, now);
    if (!certain || !result.allowed) return result;
    // Daily counts reach Redis through the database's figure instead, which every process adds to.
    for (const s of result.states) {
      if (s.check.cost > 0 && LIMITS[s.check.name].window === 'minute') {
        this.ledger.add(counterId(s.check, now).id, s.check.cost, s.resetAt);
      }
    }
    return result;
  }

  /** One attempt at a time, from the timer, a reconnection or close. */
  private recover(): Promise<void> {
    this.recovering ??= this.tryRecover().finally(() => {
      this.recovering = null;
    });
    return this.recovering;
  }

  private async tryRecover(): Promise<void> {
    this.ledger.sweep(this.latest);
    const answers = await this.ping();
    if (answers || Date.now() - this.lastShared >= (this.options.flushMs ?? 5_000)) await this.shareDaily();
    if (!answers) return;
    try {
      await this.handBackAll();
    } catch (err) {
      this.options.log?.warn({ err }, 'limit store: could not hand counts back to Redis; will retry');
    }
  }

  /**
   * While Redis is away, processes share daily counts through the database: each saves its
   * own increments and reads everyone's. Done again just before handing counts back, so
   * the daily floors Redis is raised to hold every process's saved counts.
   */
  private async shareDaily(): Promise<void> {
    this.lastShared = Date.now();
    await this.local.flush();
    try {
      await this.local.loadDaily(this.latest);
    } catch (err) {
      this.options.log?.warn({ err }, 'limit store: could not read daily counts; using this process’s own');
    }
  }

  /**
   * Hands back every count known here, then what was admitted while doing so, until nothing
   * is owed; Redis is used again in that same turn of the event loop, so nothing counted here
   * is left out. Throws (leaving the rest owed) when Redis does not acknowledge a batch.
   */
  private async handBackAll(): Promise<void> {
    await this.sendOwed();
    this.ledger.planAll(this.local.known(this.latest), this.latest);
    for (;;) {
      await this.sendOwed();
      if (!this.ledger.owing) return this.leaveFallback();
      this.ledger.planAdded((id) => this.local.countOf(id), this.latest);
    }
  }

  private async sendOwed(): Promise<void> {
    for (let batch = this.ledger.next(); batch; batch = this.ledger.next()) {
      await this.handBack(batch.keys.length, ...batch.keys, ...batch.args);
      this.ledger.acknowledge(batch);
    }
  }

  private enterFallback(reason: string): void {
    if (this.inFallback || this.closing) return;
    this.inFallback = true;
    this.options.log?.warn(
      { reason },
      'limit store: Redis unreachable; counting limits in this process until it is back',
    );
    this.events.emit('store_fallback', reason);
  }

  private leaveFallback(): void {
    if (!this.inFallback || this.closing) return;
    this.inFallback = false;
    this.options.log?.info({}, 'limit store: Redis is back and has this process’s counts; limits are shared again');
    this.events.emit('store_recovered');
  }
}
