import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, MINUTE_MS } from '../../src/lib/time.ts';
import { DailyCounterRepo } from '../../src/limits/daily-counter.repo.ts';
import { counterId, type LimitCheck } from '../../src/limits/limits.ts';
import { RedisLimitStore } from '../../src/limits/redis-store.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { uniquePrefix } from './fixtures.ts';
import { freePort, PrivateRedis } from './private-redis.ts';

/** Five seconds into a minute, at noon: the whole of each sequence falls in one minute and one day. */
const NOW = Date.UTC(2026, 9, 8, 12, 0, 5);
const TIMEOUT_MS = 1_000;
/** An answer may wait for one Redis command to time out, plus a loaded machine's slack. */
const ANSWER_BOUND_MS = TIMEOUT_MS + 2_000;

const perMinute = (subject: string, cost: 0 | 1 = 1): LimitCheck => ({
  name: 'requests_per_minute',
  subject,
  max: 50,
  cost,
});
const perDay = (subject: string, cost: 0 | 1 = 1): LimitCheck => ({ name: 'requests_per_day', subject, max: 20, cost });

describe.each(ENGINES)('limits across a lost Redis on %s', { timeout: 120_000 }, (engine) => {
  let redis: PrivateRedis;
  let storage: TestStorage;
  const stores: RedisLimitStore[] = [];

  beforeAll(async () => {
    redis = new PrivateRedis(await freePort());
    await redis.start();
    storage = await freshStorage(engine);
  });
  // Each test's stores end with it: a store left open from the test whose clock is a day
  // ahead would, on its next save, clear the counts of an earlier day that the next test uses.
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await redis?.dispose();
    await storage?.drop();
  });

  /** A store as a server process has one: Redis, and the database for daily counts. */
  const open = async (prefix: string, now = NOW) => {
    const store = new RedisLimitStore({
      url: redis.url,
      prefix,
      commandTimeoutMs: TIMEOUT_MS,
      daily: new DailyCounterRepo(storage),
      flushMs: 100,
      probeMs: 50,
    });
    stores.push(store);
    await store.start(now);
    return store;
  };

  /** `n` requests one after another; how many were allowed. Each is answered, and in bounded time. */
  const spend = async (store: RedisLimitStore, check: LimitCheck, n: number, now = NOW) => {
    let allowed = 0;
    for (let i = 0; i < n; i++) {
      const began = performance.now();
      const result = await store.consume([check], now);
      expect(performance.now() - began).toBeLessThan(ANSWER_BOUND_MS);
      if (result.allowed) allowed++;
    }
    return allowed;
  };

  /** What the store counts for `check` now, asked without counting. */
  const counted = async (store: RedisLimitStore, check: LimitCheck, now = NOW) =>
    (await store.consume([{ ...check, cost: 0 }], now)).states[0]!.count;

  /** Waits (bounded: 30 s, for a loaded CI machine; it holds within a second here) until `test` holds. */
  const until = async (what: string, test: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 600; i++) {
      if (await test()) return;
      await sleep(50);
    }
    throw new Error(`still not: ${what}`);
  };

  const inRedis = async (prefix: string, check: LimitCheck, now = NOW) => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      return Number(await client.get(prefix + counterId(check, now).id));
    } finally {
      client.disconnect();
    }
  };

  /** Stops the private Redis (its data goes with it) and starts it again, empty. */
  const restartEmpty = async (...watching: RedisLimitStore[]) => {
    await redis.stop();
    await until('every store noticed', () => watching.every((s) => s.degraded));
    await redis.start();
  };

  it('requests_per_minute=50, 30 used, Redis stopped: 20 more here; back empty: none more that minute', async () => {
    const prefix = uniquePrefix();
    const store = await open(prefix);
    const key = perMinute('stopped');
    const allowed = [await spend(store, key, 30)];
    await redis.stop();
    allowed.push(await spend(store, key, 50));
    expect(store.degraded).toBe(true);
    await redis.start();
    await until('back on Redis', () => !store.degraded);
    allowed.push(await spend(store, key, 50));
    console.info(`Redis stopped, back empty: allowed ${allowed.join(' + ')} in one minute`);
    expect(allowed).toEqual([30, 20, 0]);
    expect(await inRedis(prefix, key)).toBe(50);
    // The next minute is a fresh one.
    expect(await spend(store, key, 60, NOW + MINUTE_MS)).toBe(50);
  });

  it('requests_per_minute=50, 30 used, Redis frozen: 20 more here; thawed: none more that minute, and counted once', async () => {
    const prefix = uniquePrefix();
    const store = await open(prefix);
    const key = perMinute('frozen');
    const allowed = [await spend(store, key, 30)];
    redis.freeze();
    try {
      allowed.push(await spend(store, key, 50));
      expect(store.degraded).toBe(true);
    } finally {
      redis.thaw();
    }
    await until('back on Redis', () => !store.degraded);
    allowed.push(await spend(store, key, 50));
    console.info(`Redis frozen, thawed: allowed ${allowed.join(' + ')} in one minute`);
    expect(allowed).toEqual([30, 20, 0]);
    // The request that timed out ran when Redis thawed; the 19 counted here were handed back once.
    expect(await inRedis(prefix, key)).toBe(50);
  });

  it('requests_per_day=20, all used: neither a Redis restart nor a process restart with one gives any back that day', async () => {
    const prefix = uniquePrefix();
    const first = await open(prefix);
    const key = perDay('daily');
    const allowed = [await spend(first, key, 25)];
    await restartEmpty(first);
    await until('back on Redis', () => !first.degraded);
    allowed.push(await spend(first, key, 5, NOW + 3_600_000));
    expect(await inRedis(prefix, key)).toBe(20);
    await first.close();

    await redis.stop();
    await redis.start();
    const second = await open(prefix, NOW + 7_200_000);
    expect(second.degraded).toBe(false);
    allowed.push(await spend(second, key, 5, NOW + 7_200_000));
    console.info(`requests_per_day=20: allowed ${allowed.join(' + ')} in one day`);
    expect(allowed).toEqual([20, 0, 0]);
    expect(await inRedis(prefix, key, NOW + 7_200_000)).toBe(20);
    expect(await spend(second, key, 25, NOW + DAY_MS)).toBe(20);
  });

  it('two processes sharing Redis and the database: during the outage each admits at most one minute’s allowance, and a day holds', async () => {
    const prefix = uniquePrefix();
    const a = await open(prefix);
    const b = await open(prefix);
    const minute = perMinute('pair');
    const day = perDay('pair');
    // On Redis: 30 a minute, taken in turns (A last knew 29, B 30), and 15 of the day's 20.
    let shared = 0;
    for (let i = 0; i < 15; i++) shared += (await spend(a, minute, 1)) + (await spend(b, minute, 1));
    const dayShared = (await spend(a, day, 10)) + (await spend(b, day, 5));
    expect([shared, dayShared]).toEqual([30, 15]);

    await redis.stop();
    const outage = [await spend(a, minute, 50), await spend(b, minute, 50)];
    // Each goes on from the count it last knew: 71 in the minute, 21 over, within 2 x 50.
    expect(outage).toEqual([21, 20]);
    // Daily counts are shared through the database meanwhile: 20 in the day, none over.
    await until('A read B’s day from the database', async () => (await counted(a, day)) === 15);
    const dayOutage = [await spend(a, day, 10)];
    await until('B read A’s day from the database', async () => (await counted(b, day)) === 20);
    dayOutage.push(await spend(b, day, 10));
    expect(dayOutage).toEqual([5, 0]);

    await redis.start();
    await until('both back on Redis', () => !a.degraded && !b.degraded);
    const after = [await spend(a, minute, 10), await spend(b, minute, 10)];
    const dayAfter = [await spend(a, day, 5, NOW + 60_000), await spend(b, day, 5, NOW + 60_000)];
    console.info(
      `two processes: minute ${shared} + ${outage.join(' + ')} + ${after.join(' + ')}, ` +
        `day ${dayShared} + ${dayOutage.join(' + ')} + ${dayAfter.join(' + ')}`,
    );
    expect(after).toEqual([0, 0]);
    expect(dayAfter).toEqual([0, 0]);
    expect(await inRedis(prefix, minute)).toBeGreaterThanOrEqual(50);
    expect(await inRedis(prefix, day)).toBe(20);
  });
});
