import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStorage, type Storage } from '../../src/db/index.ts';
import type { Writer } from '../../src/db/write.ts';
import { WebhookDeliveryWorker } from '../../src/jobs/webhook-delivery.ts';
import type { WebhookWorkerDeps } from '../../src/jobs/webhook-worker-deps.ts';
import type { AttemptResult } from '../../src/jobs/webhook-sender.ts';
import { writeEvents } from '../../src/resources/webhooks/webhook-event.service.ts';
import { createEndpoint } from '../../src/resources/webhooks/webhook.service.ts';
import { addStaff, createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The delivery worker claims many deliveries in one statement, holds them until a slot to
 * their endpoint frees, and records many outcomes in one transaction. Attempts are stubbed
 * (`send`), so what is checked is who attempted what, how often, and what was recorded.
 */
describe.each(ENGINES)('batched webhook delivery on %s', (engine) => {
  let storage: TestStorage;
  let workspaceId: string;
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const endpoints: string[] = [];

  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, now, { name: 'Batches' })).id;
    await addStaff(storage, now, { workspaceId, email: `km-${engine}@example.com`, name: 'Kim', role: 'key_manager' });
    for (const path of ['/a', '/b', '/c']) {
      const made = await createEndpoint(
        storage,
        now,
        { allowHttp: true, allowPrivate: true },
        { workspaceId, url: `http://127.0.0.1:9${path}`, mode: 'live', contactsMasked: false, createdBy: 'test' },
      );
      endpoints.push(made.endpoint.id);
    }
  });
  afterAll(async () => {
    await storage?.drop();
  });
  afterEach(async () => {
    await storage.db.deleteFrom('webhook_deliveries').execute();
    await storage.db.deleteFrom('webhook_events').execute();
    await storage.db
      .updateTable('webhook_endpoints')
      .set({ status: 'enabled', failing_since: null, disabled_reason: null })
      .execute();
    clock.now = Date.now();
  });

  /** `n` events, each due now for every endpoint, written in one transaction. */
  async function events(n: number): Promise<void> {
    const rows = await storage.db.selectFrom('webhook_endpoints').selectAll().execute();
    await storage.write((tx) =>
      writeEvents(
        tx,
        storage.engine,
        { workspaceId, livemode: true },
        rows,
        Array.from({ length: n }, (_, i) => ({ type: 'customer.created', at: clock.now, object: { id: `cus_${i}` } })),
      ),
    );
  }

  /** Counts the transactions the worker makes. */
  function counted(store: Storage): Writer & { writes: number } {
    const counter = {
      db: store.db,
      writes: 0,
      write: <T>(fn: Parameters<Writer['write']>[0] & ((tx: never) => Promise<T>)) => {
        counter.writes++;
        return store.write(fn as never) as Promise<T>;
      },
    };
    return counter as Writer & { writes: number };
  }

  function worker(
    store: Writer,
    send: (url: string, body: string, headers: Record<string, string>) => Promise<AttemptResult>,
    options: { schedule?: number[] } & Pick<
      WebhookWorkerDeps,
      'perEndpoint' | 'slots' | 'pollMs' | 'yieldTo' | 'busyStartsPerSecond'
    > = {},
  ) {
    const { schedule, ...rest } = options;
    return new WebhookDeliveryWorker({
      store,
      engine: storage.engine,
      clock: now,
      mail: { smtpUrl: null, mailFrom: 'test@example.com' },
      allowPrivate: true,
      retrySchedule: schedule ?? [5],
      send: (url, body, headers) => send(url, body, headers),
      ...rest,
    });
  }

  const ok = async (): Promise<AttemptResult> => ({ ok: true, status: 204, error: null });

  it('hundreds of due deliveries take a handful of transactions, never more than the cap at once to one endpoint', async () => {
    await events(200);
    const store = counted(storage);
    const open = new Map<string, number>();
    let most = 0;
    const sent: string[] = [];
    const w = worker(store, async (url, _body, headers) => {
      open.set(url, (open.get(url) ?? 0) + 1);
      most = Math.max(most, open.get(url)!);
      await new Promise((r) => setTimeout(r, 1));
      open.set(url, open.get(url)! - 1);
      sent.push(`${url} ${headers['webhook-id']}`);
      return ok();
    });
    await w.drain();
    expect(sent).toHaveLength(600);
    expect(new Set(sent).size).toBe(600);
    expect(most).toBeLessThanOrEqual(16);
    // One attempt a transaction or two would be 600 to 1,200; outcomes gathered over a slow
    // machine's longer drain take a few more transactions, never hundreds.
    expect(store.writes).toBeLessThan(150);
    const rows = await storage.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute();
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
  });

  it.runIf(engine === 'postgres')(
    'many due deliveries claimed by two processes are each attempted exactly once',
    async () => {
      await events(300);
      const a = await openStorage(storage.url);
      const b = await openStorage(storage.url);
      const sent: string[] = [];
      const by = { a: 0, b: 0 };
      const send = (who: 'a' | 'b') => async (url: string, _body: string, headers: Record<string, string>) => {
        by[who]++;
        sent.push(`${url} ${headers['webhook-id']}`);
        await new Promise((r) => setTimeout(r, Math.random() * 3));
        return ok();
      };
      try {
        // Small holds, so each process claims many times while the other does.
        await Promise.all([
          worker(a, send('a'), { perEndpoint: 2, slots: 4 }).drain(),
          worker(b, send('b'), { perEndpoint: 2, slots: 4 }).drain(),
        ]);
      } finally {
        await a.close();
        await b.close();
      }
      expect(sent).toHaveLength(900);
      expect(new Set(sent).size).toBe(900);
      expect(by.a).toBeGreaterThan(0);
      expect(by.b).toBeGreaterThan(0);
      const rows = await storage.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute();
      expect(rows).toHaveLength(900);
      expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
    },
  );

  it('outcomes recorded together still retry, fail and mark each endpoint as its own attempts say', async () => {
    await events(40);
    const [a, b, c] = endpoints as [string, string, string];
    let cCalls = 0;
    const w = worker(storage, async (url) => {
      if (url.endsWith('/a')) return ok();
      if (url.endsWith('/b')) return { ok: false, status: 500, error: 'answered 500' };
      // c fails its first attempts, then succeeds: the success ends its run of failures.
      cCalls++;
      return cCalls <= 20 ? { ok: false, status: 503, error: 'answered 503' } : ok();
    });
    await w.drain();
    const state = async (id: string) =>
      storage.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', id).execute();
    const endpoint = async (id: string) =>
      storage.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect((await state(a)).every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    const bRows = await state(b);
    expect(
      bRows.every(
        (d) =>
          d.status === 'pending' &&
          d.attempts === 1 &&
          d.last_status === 500 &&
          Number(d.next_attempt_at) === clock.now + 5_000 &&
          d.claimed_until === null,
      ),
    ).toBe(true);
    expect(Number((await endpoint(b)).failing_since)).toBe(clock.now);
    expect((await endpoint(a)).failing_since).toBeNull();
    expect(new Set((await state(c)).map((d) => d.status))).toEqual(new Set(['pending', 'delivered']));

    // The schedule's last step passed: every one of b's is failed after its second attempt.
    clock.now += 5_000;
    await w.drain();
    expect((await state(b)).every((d) => d.status === 'failed' && d.attempts === 2)).toBe(true);
    expect((await state(c)).every((d) => d.status === 'delivered')).toBe(true);
    expect((await endpoint(c)).failing_since).toBeNull();
    expect((await endpoint(b)).status).toBe('enabled');
  });

  it('an endpoint failing everything for 3 days is disabled once, audited and emailed about once, with its outcomes batched', async () => {
    await events(30);
    const [a, b] = endpoints as [string, string];
    const w = worker(
      storage,
      async (url) => (url.endsWith('/b') ? { ok: false, status: 500, error: 'answered 500' } : ok()),
      {
        schedule: [86_400, 86_400, 86_400, 86_400],
      },
    );
    await w.drain();
    for (let day = 1; day <= 3; day++) {
      clock.now += 86_400_000;
      await w.drain();
    }
    const endpoint = async (id: string) =>
      storage.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect((await endpoint(b)).status).toBe('disabled');
    expect((await endpoint(a)).status).toBe('enabled');
    const mail = await storage.db
      .selectFrom('outbox')
      .selectAll()
      .where('recipient', '=', `km-${engine}@example.com`)
      .execute();
    expect(mail).toHaveLength(1);
    await storage.db.deleteFrom('outbox').execute();
    // The service's own act is in the audit log, as the activity check's pauses are.
    const audit = await storage.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target', '=', b)
      .where('action', '=', 'webhook.disabled')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ workspace_id: workspaceId, actor_kind: 'system', source: 'system' });
    expect(Number(audit[0]!.at)).toBe(Number((await endpoint(b)).updated_at));
    expect(JSON.parse(audit[0]!.detail)).toEqual({ reason: 'every delivery failed for 3 days' });
  });

  it('a held delivery whose lease ran too low to start is given back and claimed again, attempted once', async () => {
    await storage.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled' })
      .where('id', '!=', endpoints[0]!)
      .execute();
    await events(4);
    const sent: string[] = [];
    const leaseLeft: number[] = [];
    const w = worker(
      storage,
      async (_url, _body, headers) => {
        sent.push(headers['webhook-id']!);
        const row = await storage.db
          .selectFrom('webhook_deliveries')
          .select('claimed_until')
          .where('event_id', '=', headers['webhook-id']!)
          .where('endpoint_id', '=', endpoints[0]!)
          .executeTakeFirstOrThrow();
        leaseLeft.push(Number(row.claimed_until) - clock.now);
        // A slow receiver: the first attempt takes most of the claim's lease.
        if (sent.length === 1) clock.now += 20_000;
        return ok();
      },
      { perEndpoint: 1 },
    );
    await w.drain();
    expect(sent).toHaveLength(4);
    expect(new Set(sent).size).toBe(4);
    // Every attempt began with room in its lease for the attempt and its recording.
    expect(leaseLeft.every((ms) => ms >= 15_000)).toBe(true);
    const rows = await storage.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'claimed_until'])
      .where('endpoint_id', '=', endpoints[0]!)
      .execute();
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1 && r.claimed_until === null)).toBe(true);
  });

  it('outcomes whose transaction failed are recorded by the next one', async () => {
    await events(10);
    let writes = 0;
    const flaky: Writer = {
      db: storage.db,
      write: (fn) => {
        writes++;
        // The first transaction after the claim (the one recording the outcomes) fails.
        if (writes === 2) return Promise.reject(new Error('the database refused'));
        return storage.write(fn);
      },
    };
    const sent: string[] = [];
    await worker(flaky, async (url, _body, headers) => {
      sent.push(`${url} ${headers['webhook-id']}`);
      return ok();
    }).drain();
    expect(writes).toBeGreaterThan(2);
    expect(sent).toHaveLength(30);
    const rows = await storage.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'claimed_until'])
      .execute();
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1 && r.claimed_until === null)).toBe(true);
  });

  it('a started worker claims what this process writes at once, without waiting for its poll', async () => {
    const sent: string[] = [];
    const w = worker(
      storage,
      async (_url, _body, headers) => {
        sent.push(headers['webhook-id']!);
        return ok();
      },
      { pollMs: 60_000 },
    );
    w.start();
    try {
      // Let its first look (and its read of nothing due) pass.
      await new Promise((r) => setTimeout(r, 200));
      await events(5);
      const until = Date.now() + 2_000;
      while (sent.length < 15 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(sent).toHaveLength(15);
    } finally {
      await w.stop();
    }
    const rows = await storage.db.selectFrom('webhook_deliveries').select(['status', 'claimed_until']).execute();
    expect(rows.every((r) => r.status === 'delivered' && r.claimed_until === null)).toBe(true);
  });

  it('while the process is busy serving, attempts start at the busy rate, and every one is still made', async () => {
    const started: number[] = [];
    let busy = true;
    const rate = 20;
    const w = worker(
      storage,
      async () => {
        started.push(performance.now());
        return ok();
      },
      { pollMs: 60_000, yieldTo: { busy: () => busy, stop: () => undefined }, busyStartsPerSecond: rate },
    );
    w.start();
    try {
      await events(10); // 30 deliveries, 10 to each endpoint
      const until = Date.now() + 10_000;
      while (started.length < 30 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(started).toHaveLength(30);
      // A burst of a tenth of a second's share, then no faster than the rate (timers fire late, never early).
      const burst = rate / 10;
      const first = started[0]!;
      for (let k = burst; k < started.length; k++) {
        expect(started[k]! - first).toBeGreaterThanOrEqual(((k - burst) * 1000) / rate - 5);
      }
      // Not busy: what is due starts at once.
      busy = false;
      started.length = 0;
      await events(10);
      const soon = Date.now() + 5_000;
      while (started.length < 30 && Date.now() < soon) await new Promise((r) => setTimeout(r, 10));
      expect(started).toHaveLength(30);
      expect(started.at(-1)! - started[0]!).toBeLessThan(((30 - burst) * 1000) / rate);
    } finally {
      await w.stop();
    }
    const rows = await storage.db.selectFrom('webhook_deliveries').select(['status']).execute();
    expect(rows.every((r) => r.status === 'delivered')).toBe(true);
  });

  it('while what is due belongs to endpoints holding their fill, its polls back off instead of claiming every tenth of a second', async () => {
    await events(40); // 120 deliveries, 40 to each endpoint; each endpoint holds 16 (perEndpoint 2)
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let started = 0;
    const store = counted(storage);
    const w = worker(
      store,
      async () => {
        started++;
        await held;
        return ok();
      },
      { perEndpoint: 2 },
    );
    w.start();
    try {
      // A claim looks at one endpoint's share (16) at most, so filling all three takes several.
      const claimed = async () =>
        (
          await storage.db
            .selectFrom('webhook_deliveries')
            .select('id')
            .where('claimed_until', 'is not', null)
            .execute()
        ).length;
      await vi.waitFor(
        async () => {
          expect(started).toBe(6);
          expect(await claimed()).toBe(48);
        },
        { timeout: 3_000, interval: 10 },
      );
      // 72 more are due, and every endpoint holds its fill: each poll's claim takes nothing.
      const before = store.writes;
      await new Promise((r) => setTimeout(r, 1_600));
      // Polls 0.2, 0.4, 0.8 s apart take four claims at most; every 0.1 s would be sixteen.
      expect(store.writes - before).toBeLessThanOrEqual(6);
    } finally {
      const stopped = w.stop();
      release();
      await stopped;
    }
  });

  it('stopping gives back the deliveries it held but had not started, for any process to take at once', async () => {
    await events(40);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let started = 0;
    const w = worker(storage, async () => {
      started++;
      await held;
      return ok();
    });
    w.start();
    const until = Date.now() + 2_000;
    while (started < 48 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    const claimed = () =>
      storage.db.selectFrom('webhook_deliveries').select('id').where('claimed_until', 'is not', null).execute();
    expect(started).toBe(48);
    expect((await claimed()).length).toBe(120);
    const stopped = w.stop();
    release();
    await stopped;
    expect(await claimed()).toEqual([]);
    const rows = await storage.db.selectFrom('webhook_deliveries').select(['status']).execute();
    const delivered = rows.filter((r) => r.status === 'delivered').length;
    // The attempts in flight (16 to each endpoint) were recorded; the rest wait, unclaimed.
    expect(delivered).toBe(48);
    expect(rows.filter((r) => r.status === 'pending')).toHaveLength(72);
  });
});
