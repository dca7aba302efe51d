import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStorage } from '../../src/db/index.ts';
import type { Writer } from '../../src/db/write.ts';
import type { AttemptResult } from '../../src/jobs/webhook-sender.ts';
import { WebhookWorker, type WebhookWorkerDeps } from '../../src/jobs/webhook-worker.ts';
import { personActor } from '../../src/resources/actor.model.ts';
import { createCustomer } from '../../src/resources/customers/customer.service.ts';
import { recordEvents } from '../../src/resources/webhook-events/event.repo.ts';
import { claimDue } from '../../src/resources/webhooks/webhook-outbox.repo.ts';
import { createEndpoint, setEndpointStatus } from '../../src/resources/webhooks/webhook.service.ts';
import { addStaff, createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The webhook worker's claims, shares and outcomes. Attempts are stubbed (`send`), so what is
 * checked is who attempted what, how often, how many at once, and what was recorded.
 */
describe.each(ENGINES)('the webhook worker on %s', (engine) => {
  let storage: TestStorage;
  let workspaceId: string;
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const endpoints: string[] = [];

  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, now, { name: 'Batches' })).id;
    await addStaff(storage, now, { workspaceId, email: `km-${engine}@example.com`, name: 'Kim', role: 'key_manager' });
    await addStaff(storage, now, { workspaceId, email: `owner-${engine}@example.com`, name: 'Olu', role: 'owner' });
    await addStaff(storage, now, { workspaceId, email: `staff-${engine}@example.com`, name: 'Sam', role: 'staff' });
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
    await storage.db.deleteFrom('webhook_endpoints').where('id', 'not in', endpoints).execute();
    await storage.db
      .updateTable('webhook_endpoints')
      .set({ status: 'enabled', failing_since: null, failing_warned_at: null, disabled_reason: null })
      .execute();
    await storage.db.deleteFrom('outbox').execute();
    clock.now = Date.now();
  });

  /** `n` events, each due now for every endpoint, written in one transaction. */
  async function events(n: number): Promise<void> {
    const made = Array.from({ length: n }, (_, i) => ({
      type: 'customer.created',
      at: clock.now,
      object: { id: `cus_${i}` },
    }));
    await storage.write((tx) => recordEvents(tx, storage.engine, { workspaceId, livemode: true }, made));
  }

  function worker(
    store: Writer,
    send: (url: string, body: string, headers: Record<string, string>) => Promise<AttemptResult>,
    options: { schedule?: number[] } & Pick<
      WebhookWorkerDeps,
      'perEndpoint' | 'perWorkspace' | 'slots' | 'pollMs'
    > = {},
  ) {
    const { schedule, ...rest } = options;
    return new WebhookWorker({
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

  it('hundreds of due deliveries are each attempted once, never more than the cap at once to one endpoint', async () => {
    await events(200);
    const open = new Map<string, number>();
    let most = 0;
    const sent: string[] = [];
    const w = worker(storage, async (url, _body, headers) => {
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
    expect(most).toBeLessThanOrEqual(8);
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

  it('outcomes retry, fail and mark each endpoint as its own attempts say', async () => {
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

  it('an endpoint failing everything for 3 days is disabled once and audited; its key managers were warned once and are told once', async () => {
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
      .orderBy('created_at')
      .execute();
    // The warning after the first day, then the disable; no second warning on the way.
    expect(mail.map((m) => m.subject)).toEqual([
      'Webhook endpoint http://127.0.0.1:9/b is failing',
      'Webhook endpoint http://127.0.0.1:9/b was disabled',
    ]);
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

  it('an endpoint failing everything for 24 hours warns the key managers once, and a success re-arms the warning', async () => {
    const [a, b] = endpoints as [string, string];
    let bOk = false;
    const w = worker(
      storage,
      async (url) => (url.endsWith('/b') && !bOk ? { ok: false, status: 500, error: 'answered 500' } : ok()),
      { schedule: Array(10).fill(12 * 3_600) },
    );
    const endpoint = async (id: string) =>
      storage.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const warnings = async () =>
      storage.db
        .selectFrom('outbox')
        .select(['recipient', 'subject', 'body'])
        .where('subject', 'like', '%is failing')
        .orderBy('created_at')
        .orderBy('recipient')
        .execute();

    const start = clock.now;
    await events(1);
    await w.drain();
    clock.now += 12 * 3_600_000;
    await w.drain();
    // Failing for 12 hours: no warning yet.
    expect(Number((await endpoint(b)).failing_since)).toBe(start);
    expect((await endpoint(b)).failing_warned_at).toBeNull();
    expect(await warnings()).toEqual([]);

    // The attempt that finds the run 24 hours old warns, in its transaction.
    clock.now += 12 * 3_600_000;
    await w.drain();
    expect(Number((await endpoint(b)).failing_warned_at)).toBe(clock.now);
    const sent = await warnings();
    // Owners and key managers, as for the disable; never plain staff.
    expect(sent.map((m) => m.recipient)).toEqual([`km-${engine}@example.com`, `owner-${engine}@example.com`]);
    expect(sent[0]!.subject).toBe('Webhook endpoint http://127.0.0.1:9/b is failing');
    expect(sent[0]!.body).toContain(`has failed since ${new Date(start).toISOString()}`);
    expect(sent[0]!.body).toContain(`disabled after ${new Date(start + 3 * 86_400_000).toISOString()}`);
    expect(sent[0]!.body).toContain(`venue-api webhooks resend ${b} --since ${new Date(start).toISOString()}`);

    // Still failing a day and a half in: no second warning, still enabled.
    clock.now += 12 * 3_600_000;
    await w.drain();
    expect(await warnings()).toHaveLength(2);
    expect((await endpoint(b)).status).toBe('enabled');
    expect((await endpoint(a)).failing_warned_at).toBeNull();

    // A success ends the run and its warning; a new run of 24 hours warns again.
    bOk = true;
    clock.now += 12 * 3_600_000;
    await w.drain();
    expect((await endpoint(b)).failing_since).toBeNull();
    expect((await endpoint(b)).failing_warned_at).toBeNull();
    bOk = false;
    const again = clock.now;
    await events(1);
    await w.drain();
    expect(Number((await endpoint(b)).failing_since)).toBe(again);
    clock.now += 12 * 3_600_000;
    await w.drain();
    expect(await warnings()).toHaveLength(2);
    clock.now += 12 * 3_600_000;
    await w.drain();
    const all = await warnings();
    expect(all).toHaveLength(4);
    expect(all[2]!.body).toContain(`has failed since ${new Date(again).toISOString()}`);
    expect((await endpoint(b)).status).toBe('enabled');
  });

  it('enabling an endpoint again ends its run of failures and re-arms its warning', async () => {
    const b = endpoints[1]!;
    await storage.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', failing_since: clock.now - 3 * 86_400_000, failing_warned_at: clock.now - 86_400_000 })
      .where('id', '=', b)
      .execute();
    await setEndpointStatus(storage, now, workspaceId, b, 'enabled');
    const row = await storage.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', b)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'enabled',
      failing_since: null,
      failing_warned_at: null,
      disabled_reason: null,
    });
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
      // Five customers made through the write pipeline, whose hook tells the worker once each is durable.
      const actor = personActor('operator', 'tester', { workspaceId, livemode: true }, now);
      for (let i = 0; i < 5; i++) await storage.writes.run(actor, createCustomer, { first_name: `Customer ${i}` });
      const until = Date.now() + 2_000;
      while (sent.length < 15 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(sent).toHaveLength(15);
    } finally {
      await w.stop();
    }
    const rows = await storage.db.selectFrom('webhook_deliveries').select(['status', 'claimed_until']).execute();
    expect(rows.every((r) => r.status === 'delivered' && r.claimed_until === null)).toBe(true);
  });

  it('an attempt whose outcome could not be recorded is attempted again once its lease runs out', async () => {
    await events(1);
    let failures = 0;
    const sent: string[] = [];
    const flaky: Writer = {
      db: storage.db,
      write: (fn) => {
        // Once the attempts are made, the three transactions recording their outcomes fail.
        if (sent.length > 0 && failures < 3) {
          failures++;
          return Promise.reject(new Error('the database refused'));
        }
        return storage.write(fn);
      },
    };
    const w = worker(flaky, async (url, _body, headers) => {
      sent.push(`${url} ${headers['webhook-id']}`);
      return ok();
    });
    await w.drain();
    expect(sent).toHaveLength(3);
    clock.now += 31_000;
    await w.drain();
    expect(sent).toHaveLength(6);
    const rows = await storage.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'claimed_until'])
      .execute();
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1 && r.claimed_until === null)).toBe(true);
  });

  it("one workspace's receivers that never answer hold only its share: another workspace's delivery is attempted within a poll", async () => {
    // Workspace A: 16 endpoints that never answer, 80 events each.
    const dead = (await createWorkspace(storage, now, { name: 'Dead receivers' })).id;
    const deadEndpoints: Awaited<ReturnType<typeof createEndpoint>>['endpoint'][] = [];
    for (let i = 0; i < 16; i++) {
      const { endpoint } = await createEndpoint(
        storage,
        now,
        { allowHttp: true, allowPrivate: true },
        {
          workspaceId: dead,
          url: `http://127.0.0.1:9/dead-${i}`,
          mode: 'live',
          contactsMasked: false,
          createdBy: 'test',
        },
      );
      deadEndpoints.push(endpoint);
    }
    const burst = Array.from({ length: 80 }, (_, i) => ({
      type: 'customer.created',
      at: clock.now - 60_000,
      object: { id: `cus_${i}` },
    }));
    await storage.write((tx) => recordEvents(tx, storage.engine, { workspaceId: dead, livemode: true }, burst));
    // Workspace B: one event to its healthy endpoints, made after A's.
    await storage.write((tx) =>
      recordEvents(tx, storage.engine, { workspaceId, livemode: true }, [
        { type: 'customer.created', at: clock.now, object: { id: 'cus_b' } },
      ]),
    );
    let release!: () => void;
    const never = new Promise<void>((r) => {
      release = r;
    });
    let deadInFlight = 0;
    let mostDead = 0;
    const reached: string[] = [];
    const w = worker(storage, async (url) => {
      if (url.includes('/dead-')) {
        deadInFlight++;
        mostDead = Math.max(mostDead, deadInFlight);
        await never;
        deadInFlight--;
        return { ok: false, status: null, error: 'no answer within 10 s' };
      }
      reached.push(url);
      return ok();
    });
    w.start();
    try {
      const healthy = ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b', 'http://127.0.0.1:9/c'];
      await vi.waitFor(() => expect([...reached].sort()).toEqual(healthy), { timeout: 5_000, interval: 20 });
      // The dead workspace holds its share of the slots, no more, and each endpoint its cap.
      expect(mostDead).toBeLessThanOrEqual(16);
      expect(mostDead).toBeGreaterThan(0);
    } finally {
      const stopped = w.stop();
      release();
      await stopped;
    }
  });

  it("a claim reads only the oldest due deliveries: behind a full endpoint's backlog, only a look past (the poll's) finds the rest", async () => {
    const [a, b, c] = endpoints as [string, string, string];
    // 40 deliveries due for /a alone, then one event due a moment later for /a and /b.
    await setEndpointStatus(storage, now, workspaceId, b, 'disabled');
    await setEndpointStatus(storage, now, workspaceId, c, 'disabled');
    await events(40);
    await setEndpointStatus(storage, now, workspaceId, b, 'enabled');
    clock.now += 1;
    await events(1);
    // /a is at its cap in this process: 4 in flight, 4 allowed.
    const held = Array.from({ length: 4 }, () => ({ endpoint_id: a, workspace_id: workspaceId }));
    const claim = (lookPast: boolean) =>
      storage.write((tx) =>
        claimDue(tx, storage.engine, clock.now, clock.now + 60_000, {
          total: 2,
          perEndpoint: 4,
          perWorkspace: 64,
          held,
          lookPast,
        }),
      );
    // The oldest 8 due (4 × the free slots) are all /a's: each is passed over, and the claim stops there.
    expect(await claim(false)).toEqual({ claimed: [], exhausted: false });
    // Looking past /a's share finds /b's.
    const past = await claim(true);
    expect(past.claimed.map((d) => d.endpoint_id)).toEqual([b]);
  });

  it('an event over the size limit is failed once, when its deliveries are made, and never attempted', async () => {
    const big = { id: 'ord_big', object: 'order', lines: [{ name: 'x'.repeat(300 * 1024) }] };
    await storage.write((tx) =>
      recordEvents(tx, storage.engine, { workspaceId, livemode: true }, [
        { type: 'order.created', at: clock.now, object: big },
      ]),
    );
    const sent: string[] = [];
    await worker(storage, async (url) => {
      sent.push(url);
      return ok();
    }).drain();
    expect(sent).toEqual([]);
    const [d] = await storage.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpoints[0]!)
      .execute();
    expect(d).toMatchObject({ status: 'failed', attempts: 0, next_attempt_at: null });
    expect(d!.last_error).toMatch(/^payload of \d+ bytes is over 256 KiB$/);
  });

  it('stopping lets the attempts in flight finish and records them; the rest wait, unclaimed', async () => {
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
    await vi.waitFor(() => expect(started).toBe(16), { timeout: 3_000, interval: 10 });
    const stopped = w.stop();
    release();
    await stopped;
    const claimed = await storage.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('claimed_until', 'is not', null)
      .execute();
    expect(claimed).toEqual([]);
    const rows = await storage.db.selectFrom('webhook_deliveries').select(['status']).execute();
    expect(rows.filter((r) => r.status === 'delivered')).toHaveLength(started);
    expect(rows.filter((r) => r.status === 'pending')).toHaveLength(120 - started);
  });
});
