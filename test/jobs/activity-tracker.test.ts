import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DatabaseUnavailable } from '../../src/db/unavailable.ts';
import type { Writer } from '../../src/db/write.ts';
import { ActivityTracker, MAX_BACKOFF_MS } from '../../src/jobs/activity-tracker.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

const T0 = Date.UTC(2026, 9, 1, 10, 30);

/**
 * The storage as the tracker sees it, with an outage switch: `down` refuses every write as
 * the dialects do when the database is away; `commitFails` runs the transaction's statements
 * and then fails it, as a group whose COMMIT failed does (nothing of it stays).
 */
function flakyWriter(storage: TestStorage) {
  const state = { down: false, commitFails: false, refuse: false, attempts: 0, running: 0, mostRunning: 0 };
  const writer: Writer = {
    db: storage.db,
    async write(fn) {
      state.attempts++;
      state.running++;
      state.mostRunning = Math.max(state.mostRunning, state.running);
      try {
        // A turn of the event loop, as a real write takes: calls made meanwhile see a flush in flight.
        await new Promise((resolve) => setImmediate(resolve));
        if (state.down) throw new DatabaseUnavailable('down', 'the database cannot be reached');
        if (state.refuse) throw Object.assign(new Error('value too long'), { code: '22001' });
        if (!state.commitFails) return await storage.write(fn);
        return await storage.write(async (tx) => {
          await fn(tx);
          throw new DatabaseUnavailable('down', 'COMMIT failed: I/O error');
        });
      } finally {
        state.running--;
      }
    },
  };
  return { writer, state };
}

describe.each(ENGINES)('activity tracker under a database outage on %s', (engine) => {
  let storage: TestStorage;
  let n = 0;

  beforeAll(async () => {
    storage = await freshStorage(engine);
  });
  afterAll(async () => storage?.drop());
  afterEach(() => vi.useRealTimers());

  /** A key of its own per test, so each test reads only its own rows. */
  const newKey = () => `key_tracker${++n}`;
  const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => `cus_${from + i}`);

  async function rowsOf(keyId: string) {
    const reads = await storage.db
      .selectFrom('key_customer_reads')
      .select(['customer_id', 'last_seen_at'])
      .where('key_id', '=', keyId)
      .execute();
    const hours = await storage.db
      .selectFrom('key_activity_hours')
      .select(['hour_start', 'requests'])
      .where('key_id', '=', keyId)
      .execute();
    return { reads: reads.length, requests: hours.reduce((sum, h) => sum + Number(h.requests), 0) };
  }

  it('while writes fail: one flush in flight, no early flush per call, and every count written once it is back', async () => {
    const { writer, state } = flakyWriter(storage);
    const dropped: number[] = [];
    const errors: unknown[] = [];
    const tracker = new ActivityTracker(writer, storage.engine, () => T0, {
      maxBuffered: 10,
      onError: (err) => errors.push(err),
      onDropped: (rows) => dropped.push(rows),
    });
    const key = newKey();
    state.down = true;
    // Far past the early-flush threshold, call after call.
    for (let i = 0; i < 200; i++) {
      tracker.request(key, 'wsp_1');
      tracker.customersSent(key, 'wsp_1', ids(i * 5, 5));
    }
    // The failed write rejects a turn of the event loop later: wait for it, not a fixed time.
    await vi.waitFor(() => expect(errors).not.toHaveLength(0), { timeout: 5_000, interval: 10 });
    // One early flush started and failed; after it, calls wait for the timer's backoff.
    expect(state.attempts).toBe(1);
    expect(state.mostRunning).toBe(1);
    expect(errors).toHaveLength(1);
    expect(tracker.stats()).toMatchObject({ buffered: 1000, written: 0, dropped: 0, failures: 1 });

    // Flushes asked for at once while it is down: one writes, the rest share a second.
    const many = await Promise.allSettled(Array.from({ length: 50 }, () => tracker.flush()));
    expect(many.every((r) => r.status === 'rejected')).toBe(true);
    expect(state.attempts).toBe(3);
    expect(state.mostRunning).toBe(1);
    expect(await rowsOf(key)).toEqual({ reads: 0, requests: 0 });

    state.down = false;
    await tracker.flush();
    expect(await rowsOf(key)).toEqual({ reads: 1000, requests: 200 });
    expect(tracker.stats()).toMatchObject({ buffered: 0, written: 1001, dropped: 0, failures: 0 });
    expect(dropped).toEqual([]);
  });

  it('the buffer is capped: new sends past the cap are dropped and counted, the ones held still written', async () => {
    const { writer, state } = flakyWriter(storage);
    const dropped: number[] = [];
    const tracker = new ActivityTracker(writer, storage.engine, () => T0, {
      maxRows: 100,
      onDropped: (rows) => dropped.push(rows),
    });
    const key = newKey();
    state.down = true;
    tracker.customersSent(key, 'wsp_1', ids(0, 80));
    await expect(tracker.flush()).rejects.toThrow(DatabaseUnavailable);
    tracker.customersSent(key, 'wsp_1', ids(80, 50)); // 20 fit, 30 do not
    tracker.customersSent(key, 'wsp_1', ids(0, 10)); // already held: kept, nothing new
    expect(tracker.stats()).toMatchObject({ buffered: 100, dropped: 30 });
    expect(dropped).toEqual([30]);
    state.down = false;
    await tracker.flush();
    expect((await rowsOf(key)).reads).toBe(100);
    tracker.customersSent(key, 'wsp_1', ids(500, 5)); // room again once written
    expect(tracker.stats()).toMatchObject({ buffered: 5, dropped: 30 });
    await tracker.stop();
  });

  it('a batch whose COMMIT fails is not counted as written, goes back, and is written once later', async () => {
    const { writer, state } = flakyWriter(storage);
    const tracker = new ActivityTracker(writer, storage.engine, () => T0);
    const key = newKey();
    for (let i = 0; i < 3; i++) tracker.request(key, 'wsp_1');
    tracker.customersSent(key, 'wsp_1', ids(0, 4));
    tracker.used(key);
    state.commitFails = true;
    await expect(tracker.flush()).rejects.toThrow(/COMMIT failed/);
    expect(tracker.stats()).toMatchObject({ buffered: 4, written: 0 });
    expect(await rowsOf(key)).toEqual({ reads: 0, requests: 0 });
    state.commitFails = false;
    await tracker.flush();
    expect(await rowsOf(key)).toEqual({ reads: 4, requests: 3 }); // counted once, not twice
    expect(tracker.stats()).toMatchObject({ buffered: 0, written: 5 });
  });

  it('a batch the database refuses for itself (not an outage) is dropped and counted, and does not block the next', async () => {
    const { writer, state } = flakyWriter(storage);
    const dropped: number[] = [];
    const tracker = new ActivityTracker(writer, storage.engine, () => T0, { onDropped: (r) => dropped.push(r) });
    const key = newKey();
    tracker.request(key, 'wsp_1');
    tracker.customersSent(key, 'wsp_1', ids(0, 3));
    state.refuse = true;
    await expect(tracker.flush()).rejects.toThrow(/value too long/);
    expect(dropped).toEqual([4]);
    state.refuse = false;
    tracker.customersSent(key, 'wsp_1', ids(10, 2));
    await tracker.flush();
    expect(await rowsOf(key)).toEqual({ reads: 2, requests: 0 });
  });

  it('the timer backs off while writes fail, doubling to at most 5 minutes, and returns to its pace after', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { writer, state } = flakyWriter(storage);
    const tracker = new ActivityTracker(writer, storage.engine, () => T0, { flushMs: 10_000, onError: () => {} });
    const key = newKey();
    state.down = true;
    tracker.start();
    const attemptsAt: number[] = [];
    let elapsed = 0;
    const advance = async (ms: number) => {
      for (let step = 0; step < ms; step += 1_000) {
        tracker.request(key, 'wsp_1');
        const before = state.attempts;
        await vi.advanceTimersByTimeAsync(1_000);
        // Writes run on real I/O and setImmediate, which fake timers leave real: let them finish.
        const turn = () => new Promise((resolve) => setImmediate(resolve));
        while (state.running > 0) await turn();
        for (let i = 0; i < 5; i++) await turn();
        elapsed += 1_000;
        if (state.attempts > before) attemptsAt.push(elapsed / 1_000);
      }
    };
    await advance(20 * 60_000);
    // 10 s, then waits of 20, 40, 80, 160 s, then 300 s (the cap) each.
    const gaps = attemptsAt.map((at, i) => at - (attemptsAt[i - 1] ?? 0));
    expect(gaps.slice(0, 7)).toEqual([10, 20, 40, 80, 160, 300, 300]);
    expect(Math.max(...gaps)).toBe(MAX_BACKOFF_MS / 1_000);
    state.down = false;
    attemptsAt.length = 0;
    await advance(5 * 60_000 + 30_000);
    expect(attemptsAt.length).toBeGreaterThanOrEqual(3); // back to every 10 s after the first success
    const last = attemptsAt.slice(-3);
    expect(last[2]! - last[1]!).toBe(10);
    vi.useRealTimers();
    await tracker.stop();
    expect((await rowsOf(key)).requests).toBe(20 * 60 + 5 * 60 + 30);
  });
});
