import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { DailyCounterRepo } from '../../src/limits/daily-counter.repo.ts';
import { refusedKeysCheck, type LimitCheck } from '../../src/limits/limits.ts';
import { MemoryLimitStore } from '../../src/limits/memory-store.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { dropPrefix, STORES, storeEnv, uniquePrefix } from './fixtures.ts';

const NOON = Date.UTC(2026, 9, 8, 12, 0, 0);
const CASES = ENGINES.flatMap((engine) => STORES.map((store) => [engine, store] as const));

describe.each(CASES)('daily budgets across a restart on %s, %s store', (engine, store) => {
  let storage: TestStorage;
  const prefix = uniquePrefix();
  const now = { value: NOON };
  const clock = () => now.value;
  beforeAll(async () => {
    storage = await freshStorage(engine);
  });
  afterAll(async () => {
    await storage?.drop();
    if (store === 'redis') await dropPrefix(prefix);
  });

  const start = async () => {
    const { app } = await buildApp(loadConfig({ BASE_URL: 'http://api.test', ...storeEnv(store, prefix) }), {
      storage,
      clock,
      logger: false,
    });
    await app.ready();
    return app;
  };

  it('a key that used 2 of its 3 requests a day has 1 left after the server restarts', async () => {
    const ws = await createWorkspace(storage, clock, { name: 'Restart' });
    const { secret } = await createKey(storage, clock, {
      workspaceId: ws.id,
      name: 'daily',
      mode: 'test',
      access: 'read',
      limits: { requests_per_day: 3 },
    });
    const get = (app: Awaited<ReturnType<typeof start>>) =>
      app.inject({ method: 'GET', url: '/key', headers: { authorization: `Bearer ${secret}` } });
    const first = await start();
    expect((await get(first)).statusCode).toBe(200);
    expect((await get(first)).statusCode).toBe(200);
    await first.close();

    now.value += 3_600_000; // later the same day, in another minute
    const second = await start();
    expect((await get(second)).statusCode).toBe(200);
    const refused = await get(second);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().limit).toBe('requests_per_day');
    await second.close();
  });
});

describe.each(ENGINES)('the in-process store saving daily counts on %s', (engine) => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await freshStorage(engine);
  });
  afterAll(async () => storage?.drop());

  const rows = () => storage.db.selectFrom('limit_counters').selectAll().orderBy('window_start').execute();

  it('saves daily counts periodically, not per-minute ones, and forgets earlier days', async () => {
    const repo = new DailyCounterRepo(storage);
    const yesterday = new MemoryLimitStore({ daily: repo });
    await yesterday.consume([{ name: 'writes_per_day', subject: 'key_old', max: 9, cost: 1 }], NOON - 86_400_000);
    await yesterday.close();
    expect(await rows()).toHaveLength(1);

    const store = new MemoryLimitStore({ daily: repo, flushMs: 20 });
    await store.start(NOON);
    const daily: LimitCheck = { name: 'removals_per_day', subject: 'key_a', max: 9, cost: 1 };
    for (let i = 0; i < 3; i++) await store.consume([daily, refusedKeysCheck('192.0.2.1', 1)], NOON);
    let saved = await rows();
    for (let i = 0; i < 200 && saved.some((r) => r.window_start < NOON - 43_200_000); i++) {
      await sleep(20);
      saved = await rows();
    }
    await store.close();
    expect(saved.map((r) => [r.counter_id, Number(r.count)])).toEqual([
      [`removals_per_day:key_a:${NOON - 43_200_000}`, 3],
    ]);
  });
});
