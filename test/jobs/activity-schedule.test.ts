import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStorage, type Storage } from '../../src/db/index.ts';
import type { ActivityCheckResult } from '../../src/jobs/activity-check.ts';
import { HourlyActivityCheck } from '../../src/jobs/activity-schedule.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/** The in-server timer: runs after start, and once per hour in total however many processes run it. */
describe.each(ENGINES)('hourly activity check schedule on %s', (engine) => {
  let storage: TestStorage;
  let second: Storage;
  const now = Date.UTC(2026, 10, 3, 14, 5);

  beforeAll(async () => {
    storage = await freshStorage(engine);
    // Another pool, as a second process would have. One process serves a SQLite file (its job
    // lock is the process): two connections of one process would wait on each other's write
    // lock synchronously, a setting no deployment has, so there both schedulers share one.
    second = engine === 'postgres' ? await openStorage(storage.url) : storage;
  });
  afterAll(async () => {
    if (second !== storage) await second?.close();
    await storage?.drop();
  });

  function schedule(s: Storage, steps: string[]) {
    let settle: (r: ActivityCheckResult) => void = () => undefined;
    const result = new Promise<ActivityCheckResult>((resolve) => (settle = resolve));
    const job = new HourlyActivityCheck(
      { store: s, engine: s.engine, clock: () => now, mail: { smtpUrl: null, mailFrom: 'x <x@x.test>' } },
      {
        graceMs: 10,
        beforeRun: async () => void steps.push('flush'),
        onResult: (r) => {
          steps.push(r.ran ? 'ran' : 'skipped');
          settle(r);
        },
      },
    );
    return { job, result };
  }

  it('two processes starting in the same hour run the check once between them, after flushing', async () => {
    const steps: string[] = [];
    const a = schedule(storage, steps);
    const b = schedule(second, steps);
    a.job.start();
    b.job.start();
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('no run within 10 s')), 10_000),
    );
    try {
      const results = await Promise.race([Promise.all([a.result, b.result]), timeout]);
      expect(results.map((r) => r.ran).sort()).toEqual([false, true]);
      expect(steps.filter((s) => s === 'flush')).toHaveLength(2);
      expect(steps.indexOf('flush')).toBeLessThan(steps.indexOf('ran'));
    } finally {
      await a.job.stop();
      await b.job.stop();
    }
    const meta = await storage.db
      .selectFrom('meta')
      .selectAll()
      .where('name', '=', 'activity_check.last_hour')
      .execute();
    expect(meta).toEqual([{ name: 'activity_check.last_hour', value: String(Date.UTC(2026, 10, 3, 14)) }]);
  });

  it('a run that failed (the database down) is tried again within minutes, not next hour', async () => {
    let tries = 0;
    const ran: boolean[] = [];
    const job = new HourlyActivityCheck(
      {
        store: storage,
        engine: storage.engine,
        clock: () => now + 3_600_000,
        mail: { smtpUrl: null, mailFrom: 'x <x@x.test>' },
      },
      {
        graceMs: 10,
        retryMs: 50,
        beforeRun: async () => {
          tries++;
          if (tries === 1) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        },
        onResult: (r) => void ran.push(r.ran),
      },
    );
    job.start();
    try {
      await vi.waitFor(() => expect(ran).toHaveLength(1), { timeout: 5_000, interval: 20 });
      expect(tries).toBe(2);
    } finally {
      await job.stop();
    }
  });
});
