import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/schema.ts';
import { ActivityTracker } from '../../src/jobs/activity-tracker.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The tracker's flush (src/jobs/activity-tracker.ts): request counts in one transaction,
 * customers sent a batch a transaction with requests let through between batches; a failed
 * batch goes back into the buffer with everything after it, and the next flush writes it.
 */
for (const engine of ENGINES) {
  describe(`activity tracker flush (${engine})`, () => {
    let storage: TestStorage;
    const clock = { now: Date.UTC(2026, 10, 1, 12) };
    beforeAll(async () => {
      storage = await freshStorage(engine);
    });
    afterAll(() => storage.drop());

    const customers = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `cus_${prefix}${i}`);
    const sent = (keyId: string) =>
      storage.db
        .selectFrom('key_customer_reads')
        .select(['customer_id', 'last_seen_at'])
        .where('key_id', '=', keyId)
        .execute();

    it('writes every customer sent across batches, and lets other queries run meanwhile', async () => {
      // SQLite has one connection: a read waits for whatever transaction holds it.
      const tracker = new ActivityTracker(storage.db, storage.engine, () => clock.now);
      tracker.request('key_many', 'wsp_t');
      tracker.customersSent('key_many', 'wsp_t', customers(1_300, 'm'));
      let flushed = false;
      const flushing = tracker.flush().then(() => {
        flushed = true;
      });
      // A read issued once the flush has begun is answered before the flush ends.
      await new Promise((resolve) => setImmediate(resolve));
      await storage.db.selectFrom('key_customer_reads').select('key_id').limit(1).execute();
      if (engine === 'sqlite') expect(flushed).toBe(false);
      await flushing;
      expect(await sent('key_many')).toHaveLength(1_300);
      const hours = await storage.db
        .selectFrom('key_activity_hours')
        .selectAll()
        .where('key_id', '=', 'key_many')
        .execute();
      expect(hours.map((h) => Number(h.requests))).toEqual([1]);
    });

    it('a failed batch and the ones after it are written by the next flush; counts are not doubled', async () => {
      let transactions = 0;
      let failOn = 3; // counts, then the first batch of customers, then this one fails
      const flaky = new Proxy(storage.db, {
        get(target, prop) {
          if (prop === 'transaction') {
            return () => ({
              execute: async (fn: Parameters<ReturnType<Db['transaction']>['execute']>[0]) => {
                if (++transactions === failOn) throw new Error('disk I/O error');
                return target.transaction().execute(fn);
              },
            });
          }
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const tracker = new ActivityTracker(flaky, storage.engine, () => clock.now);
      tracker.request('key_flaky', 'wsp_t');
      tracker.customersSent('key_flaky', 'wsp_t', customers(1_300, 'f'));
      await expect(tracker.flush()).rejects.toThrow(/disk/);
      expect(await sent('key_flaky')).toHaveLength(512);
      failOn = 0;
      await tracker.flush();
      expect(await sent('key_flaky')).toHaveLength(1_300);
      const hours = await storage.db
        .selectFrom('key_activity_hours')
        .selectAll()
        .where('key_id', '=', 'key_flaky')
        .execute();
      expect(hours.map((h) => Number(h.requests))).toEqual([1]);
    });

    it('a failed count goes back whole, customers sent with it', async () => {
      let fail = true;
      const flaky = new Proxy(storage.db, {
        get(target, prop) {
          if (prop === 'transaction') {
            return () => ({
              execute: async (fn: Parameters<ReturnType<Db['transaction']>['execute']>[0]) => {
                if (fail) throw new Error('disk I/O error');
                return target.transaction().execute(fn);
              },
            });
          }
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const tracker = new ActivityTracker(flaky, storage.engine, () => clock.now);
      tracker.request('key_whole', 'wsp_t');
      tracker.request('key_whole', 'wsp_t');
      tracker.customersSent('key_whole', 'wsp_t', customers(3, 'w'));
      await expect(tracker.flush()).rejects.toThrow(/disk/);
      fail = false;
      tracker.request('key_whole', 'wsp_t');
      await tracker.flush();
      const hours = await storage.db
        .selectFrom('key_activity_hours')
        .selectAll()
        .where('key_id', '=', 'key_whole')
        .execute();
      expect(hours.map((h) => Number(h.requests))).toEqual([3]);
      expect(await sent('key_whole')).toHaveLength(3);
    });
  });
}
