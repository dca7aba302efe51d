import { Redis } from 'ioredis';
import { LimitEvents, type CheckState, type Consumption, type LimitStore } from './limit-store.ts';
import { counterId, type LimitCheck } from './limits.ts';
import { MemoryLimitStore, type LimitLog } from './memory-store.ts';

/**
 * Checks every counter and, only when none has reached its max, adds each cost: one round
 * trip, atomic because Redis runs a script alone (DECISIONS "Limits": a refused request
 * consumes nothing). KEYS: the counters; ARGV per key: max, cost, ttl ms.
 * Returns {allowed (1|0), count 1, count 2, …}.
 */
const CONSUME_LUA = `
local counts = {}
local allowed = 1
for i = 1, #KEYS do
  counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  if counts[i] >= tonumber(ARGV[3 * i - 2]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, #KEYS do
    local cost = tonumber(ARGV[3 * i - 1])
    if cost > 0 then
      counts[i] = redis.call('INCRBY', KEYS[i], cost)
      if counts[i] == cost then redis.call('PEXPIRE', KEYS[i], ARGV[3 * i]) end
    end
  end
end
table.insert(counts, 1, allowed)
return counts
`;

/** A key outlives its window a little, so processes whose clocks differ slightly agree. */
const EXPIRY_SLACK_MS = 60_000;
/** While Redis misbehaves but the connection looks up, try it at most this often. */
const PROBE_MS = 1_000;

type ConsumeCommand = (numKeys: number, ...args: (string | number)[]) => Promise<number[]>;

export interface RedisStoreOptions {
  url: string;
  /** Prefix of every key written, so deployments (and test runs) can share one Redis. */
  prefix: string;
  events?: LimitEvents;
  log?: LimitLog;
  /** How long one limit check may wait for Redis before the fallback answers. */
  commandTimeoutMs?: number;
}

/**
 * Limits shared by every process using one Redis (REDIS_URL). When Redis cannot be reached
 * the service keeps answering from per-process counts, says so in the log and the events,
 * and goes back to Redis by itself once it answers again (docs/operations.md "Limits").
 */
export class RedisLimitStore implements LimitStore {
  readonly backend = 'redis' as const;
  readonly events: LimitEvents;
  private readonly redis: Redis;
  private readonly fallback: MemoryLimitStore;
  private readonly run: ConsumeCommand;
  private inFallback = false;
  private nextProbe = 0;
  private closing = false;

  constructor(private readonly options: RedisStoreOptions) {
    this.events = options.events ?? new LimitEvents();
    this.fallback = new MemoryLimitStore({ events: this.events });
    this.redis = new Redis(options.url, {
      // Fail at once rather than queue: the fallback answers while Redis is away.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(100 * times, 2_000),
    });
    this.redis.defineCommand('venueLimitConsume', { lua: CONSUME_LUA });
    this.run = (this.redis as unknown as Record<string, ConsumeCommand>).venueLimitConsume!.bind(this.redis);
    this.redis.on('ready', () => this.leaveFallback());
    this.redis.on('error', (err: Error) => this.enterFallback(err.message));
    this.redis.on('close', () => this.enterFallback('connection closed'));
  }

  get degraded(): boolean {
    return this.inFallback;
  }

  /** Waits (bounded) for the first connection, so a start does not begin in fallback. */
  async start(waitMs = 2_000): Promise<void> {
    if (this.redis.status === 'ready') return;
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

  async consume(checks: readonly LimitCheck[], now: number): Promise<Consumption> {
    if (this.redis.status !== 'ready' || (this.inFallback && Date.now() < this.nextProbe)) {
      if (this.redis.status !== 'ready') this.enterFallback(`redis is ${this.redis.status}`);
      return this.fallback.consumeNow(checks, now);
    }
    const ids = checks.map((check) => counterId(check, now));
    const args: (string | number)[] = ids.map((c) => this.options.prefix + c.id);
    for (const [i, check] of checks.entries())
      args.push(check.max, check.cost, ids[i]!.resetAt - now + EXPIRY_SLACK_MS);
    try {
      const [allowed, ...counts] = await this.run(checks.length, ...args);
      this.leaveFallback();
      const states: CheckState[] = checks.map((check, i) => ({ check, count: counts[i]!, resetAt: ids[i]!.resetAt }));
      return { allowed: allowed === 1, states };
    } catch (err) {
      this.nextProbe = Date.now() + PROBE_MS;
      this.enterFallback((err as Error).message);
      return this.fallback.consumeNow(checks, now);
    }
  }

  async ping(): Promise<boolean> {
    if (this.redis.status !== 'ready') return false;
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    try {
      if (this.redis.status === 'ready') await this.redis.quit();
      else this.redis.disconnect();
    } catch {
      this.redis.disconnect();
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
    this.options.log?.info({}, 'limit store: Redis is back; limits are shared again');
    this.events.emit('store_recovered');
  }
}
