import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/lib/time.ts';
import { refusingState, type LimitStore } from '../../src/limits/limit-store.ts';
import type { LimitCheck, LimitName } from '../../src/limits/limits.ts';
import { MemoryLimitStore } from '../../src/limits/memory-store.ts';
import { RedisLimitStore } from '../../src/limits/redis-store.ts';
import { dropPrefix, REDIS_URL, STORES, uniquePrefix } from './fixtures.ts';

const MIDNIGHT = Date.UTC(2026, 9, 9);
const check = (name: LimitName, subject: string, max: number, cost: 0 | 1 = 1): LimitCheck => ({
  name,
  subject,
  max,
  cost,
});

describe.each(STORES)('the %s limit store', (kind) => {
  const prefix = uniquePrefix();
  const store: LimitStore =
    kind === 'memory'
      ? new MemoryLimitStore()
      : // A loaded machine may answer late: a timeout here would be a fallback the test counts.
        new RedisLimitStore({ url: REDIS_URL, prefix, commandTimeoutMs: 5_000 });
  beforeAll(async () => {
    if (store instanceof RedisLimitStore) await store.start(MIDNIGHT);
  });
  afterAll(async () => {
    // Every answer above came from the store itself, never from a fallback.
    expect(store.degraded).toBe(false);
    await store.close();
    if (kind === 'redis') await dropPrefix(prefix);
  });

  it('counts every check or none: a refusal by one leaves the others untouched', async () => {
    const now = MIDNIGHT + 5_000;
    const pair = [check('writes_per_minute', 'k1', 1), check('requests_per_minute', 'k1', 10)];
    expect((await store.consume(pair, now)).allowed).toBe(true);
    const refused = await store.consume(pair, now);
    expect(refused.allowed).toBe(false);
    expect(refused.states.map((s) => s.count)).toEqual([1, 1]);
    expect(refusingState(refused)?.check.name).toBe('writes_per_minute');
    const alone = await store.consume([check('requests_per_minute', 'k1', 10)], now);
    expect(alone.states[0]!.count).toBe(2);
  });

  it('a cost-0 check asks without counting and refuses once the count reached max', async () => {
    const now = MIDNIGHT + 5_000;
    const ask = check('refused_keys_per_minute', 'a1', 2, 0);
    for (let i = 0; i < 3; i++) expect((await store.consume([ask], now)).states[0]!.count).toBe(0);
    await store.consume([check('refused_keys_per_minute', 'a1', 2)], now);
    await store.consume([check('refused_keys_per_minute', 'a1', 2)], now);
    expect((await store.consume([ask], now)).allowed).toBe(false);
  });

  it('a minute is a fixed 60 s window and a day ends at 00:00 UTC', async () => {
    const minute = check('requests_per_minute', 'k2', 1);
    const day = check('requests_per_day', 'k2', 1);
    const before = MIDNIGHT - 1;
    expect((await store.consume([minute, day], before)).allowed).toBe(true);
    const last = await store.consume([minute, day], before);
    expect(last.allowed).toBe(false);
    expect(last.states.map((s) => s.resetAt)).toEqual([MIDNIGHT, MIDNIGHT]);
    const next = await store.consume([minute, day], MIDNIGHT);
    expect(next.allowed).toBe(true);
    expect(next.states.map((s) => s.resetAt)).toEqual([MIDNIGHT + 60_000, MIDNIGHT + DAY_MS]);
    expect((await store.consume([minute], MIDNIGHT + 59_999)).allowed).toBe(false);
    expect((await store.consume([minute], MIDNIGHT + 60_000)).allowed).toBe(true);
  });

  it('50 racing requests against a max of 20: exactly 20 are counted', async () => {
    const now = MIDNIGHT + 5_000;
    const checks = [check('requests_per_day', 'race', 100), check('requests_per_minute', 'race', 20)];
    const results = await Promise.all(Array.from({ length: 50 }, () => store.consume(checks, now)));
    expect(results.filter((r) => r.allowed)).toHaveLength(20);
    const after = await store.consume([check('requests_per_day', 'race', 100)], now);
    expect(after.states[0]!.count).toBe(21);
    if (kind === 'redis') {
      const redis = new Redis(REDIS_URL);
      const counted = await redis.get(`${prefix}requests_per_minute:race:${now - (now % 60_000)}`);
      redis.disconnect();
      expect(counted).toBe('20');
    }
  });

  it('reports a refusal under the limit that frees up last', async () => {
    const now = MIDNIGHT + 5_000;
    const both = [check('requests_per_minute', 'k3', 1), check('requests_per_day', 'k3', 1)];
    await store.consume(both, now);
    expect(refusingState(await store.consume(both, now))?.check.name).toBe('requests_per_day');
  });
});
