import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { Redis } from 'ioredis';
import { DAY_MS, MINUTE_MS } from '../../src/lib/time.ts';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/** The shared Redis of the machine; every test run writes under its own prefix. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const STORES = ['memory', 'redis'] as const;
export type StoreKind = (typeof STORES)[number];

export function uniquePrefix(): string {
  return `venue-test:${randomBytes(6).toString('hex')}:`;
}

/** Env for makeTestApp: the in-process store, or Redis under a fresh prefix. */
export function storeEnv(store: StoreKind, prefix = uniquePrefix()): Record<string, string> {
  return store === 'redis' ? { REDIS_URL, REDIS_PREFIX: prefix } : {};
}

/** Removes what a test run left in the shared Redis (bounded SCAN). */
export async function dropPrefix(prefix: string, url = REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    for (let i = 0; i < 10_000; i++) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  } finally {
    redis.disconnect();
  }
}

/**
 * Write and removal routes that need a read-write key, so the write and removal limits are
 * tested whatever customer routes exist. Hidden from the OpenAPI document.
 */
export function limitFixtureRoutes(app: FastifyInstance): void {
  const reply = async () => ({ ok: true });
  app.post(
    '/_limits/write',
    { schema: { hide: true }, config: { access: { kind: 'write', permission: 'customers.create' } } },
    reply,
  );
  app.patch(
    '/_limits/write',
    { schema: { hide: true }, config: { access: { kind: 'write', permission: 'customers.update' } } },
    reply,
  );
  app.delete(
    '/_limits/removal',
    { schema: { hide: true }, config: { access: { kind: 'write', permission: 'customers.delete' } } },
    reply,
  );
}

export const read = (t: TestApp, key: TestKey, extra: InjectOptions = {}) =>
  t.call(key, { method: 'GET', url: '/key', ...extra });
export const write = (t: TestApp, key: TestKey, method: 'POST' | 'PATCH' = 'POST') =>
  t.call(key, { method, url: '/_limits/write', headers: { 'idempotency-key': randomUUID() } });
export const removal = (t: TestApp, key: TestKey) => t.call(key, { method: 'DELETE', url: '/_limits/removal' });

/** One second into the next minute: each test starts with fresh per-minute windows. */
export function nextMinute(now: number): number {
  return Math.floor(now / MINUTE_MS) * MINUTE_MS + MINUTE_MS + 1_000;
}

/** One second into the next UTC day. */
export function nextDay(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS + DAY_MS + 1_000;
}

/** Noon UTC on the current version's date: windows are easy to reason about. */
export const START = Date.UTC(2026, 9, 8, 12, 0, 0);

/** Every engine with every limit store. */
export const CASES = ENGINES.flatMap((engine) => STORES.map((store) => [engine, store] as const));

/**
 * Registers the hooks of a suite on one engine and store: an app on the injected clock at
 * START, checked to use that store (and never to have fallen back), each test starting in a
 * fresh minute. `use` receives the app once it is built.
 */
export function useStoreApp(
  engine: (typeof ENGINES)[number],
  store: StoreKind,
  use: (t: TestApp) => void,
  options: { routes?: (app: FastifyInstance) => void } = {},
): void {
  const prefix = uniquePrefix();
  let t: TestApp | undefined;
  beforeAll(async () => {
    t = await makeTestApp(engine, { clock: START, env: storeEnv(store, prefix), ...options });
    expect(t.app.limitStore.backend).toBe(store);
    use(t);
  });
  afterAll(async () => {
    expect(t?.app.limitStore.degraded).toBe(false); // the chosen store answered every time
    await t?.close();
    if (store === 'redis') await dropPrefix(prefix);
  });
  beforeEach(() => {
    t!.clock.now = nextMinute(t!.clock.now);
  });
}
