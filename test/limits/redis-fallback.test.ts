import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { read, uniquePrefix } from './fixtures.ts';
import { freePort, PrivateRedis } from './private-redis.ts';

const START = Date.UTC(2026, 9, 8, 12, 0, 1);
const WINDOW = START - 1_000;

/** Waits (bounded: 10 s) until the store is, or is no longer, in fallback. */
async function until(t: TestApp, degraded: boolean): Promise<void> {
  for (let i = 0; i < 200 && t.app.limitStore.degraded !== degraded; i++) await sleep(50);
  expect(t.app.limitStore.degraded).toBe(degraded);
}

describe.each(ENGINES)('limits while the Redis store is lost and found on %s', (engine) => {
  let redis: PrivateRedis;
  let t: TestApp;
  const prefix = uniquePrefix();
  const events: string[] = [];

  beforeAll(async () => {
    redis = new PrivateRedis(await freePort());
    await redis.start();
    t = await makeTestApp(engine, { clock: START, env: { REDIS_URL: redis.url, REDIS_PREFIX: prefix } });
    t.app.limitStore.events.on('store_fallback', () => events.push('fallback'));
    t.app.limitStore.events.on('store_recovered', () => events.push('recovered'));
    t.app.limitStore.events.on('rate_limited', (limit) => events.push(`429 ${limit}`));
  });
  afterAll(async () => {
    await t?.close();
    await redis?.dispose();
  });

  const countInRedis = async (keyId: string) => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      return await client.get(`${prefix}requests_per_minute:${keyId}:${WINDOW}`);
    } finally {
      client.disconnect();
    }
  };

  it('keeps answering and limiting in this process while Redis is down, then hands its counts back to Redis by itself', async () => {
    const key = await t.makeKey({ limits: { requests_per_minute: 3 } });
    expect(t.app.limitStore.backend).toBe('redis');
    expect((await read(t, key)).headers['ratelimit']).toBe('"default";r=2;t=59');
    expect(await countInRedis(key.id)).toBe('1');
    expect(await t.app.limitStore.ping()).toBe(true);

    await redis.stop();
    await until(t, true);
    expect(await t.app.limitStore.ping()).toBe(false);
    // The fallback goes on from the count this process last had from Redis, and refuses at the limit.
    for (let r = 1; r >= 0; r--) {
      const res = await read(t, key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit']).toBe(`"default";r=${r};t=59`);
    }
    expect((await read(t, key)).json().limit).toBe('requests_per_minute');

    await redis.start();
    await until(t, false);
    // Back on a fresh Redis (nothing was saved), which was handed this process's count first.
    expect(await countInRedis(key.id)).toBe('3');
    const back = await read(t, key);
    expect(back.statusCode).toBe(429);
    expect(back.headers['ratelimit']).toBe('"default";r=0;t=59');
    expect(events).toEqual(['fallback', '429 requests_per_minute', 'recovered', '429 requests_per_minute']);
  });
});
