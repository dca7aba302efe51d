import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/db/index.ts';
import { WebhookDeliveryWorker } from '../../src/jobs/webhook-delivery.ts';
import type { AttemptResult } from '../../src/jobs/webhook-sender.ts';
import { fanOutEvents } from '../../src/resources/webhooks/webhook-fan-out.repo.ts';
import { createEndpoint, deleteEndpoint, setEndpointStatus } from '../../src/resources/webhooks/webhook.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, patch } from '../helpers/writes.ts';

/**
 * A customer's event rides in its change-log row (020-change-log-events) until the delivery
 * worker makes its deliveries (webhook-fan-out.repo.ts): to the endpoints of its workspace and
 * mode that take its type, are enabled and were made by the time of the change; once, by one
 * process; and while the process is busy serving, at the busy rate, a batch at a time.
 */
const OPEN = { allowHttp: true, allowPrivate: true };

describe.each(ENGINES)('events riding in change-log rows on %s', (engine) => {
  let t: TestApp;
  const workers: WebhookDeliveryWorker[] = [];
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(() => t?.close());
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
    await t.storage.db.updateTable('change_log').set({ event: null }).execute();
    await t.storage.db.deleteFrom('webhook_deliveries').execute();
    await t.storage.db.deleteFrom('webhook_events').execute();
    await t.storage.db.deleteFrom('webhook_endpoints').execute();
  });

  const endpoint = async (mode: 'test' | 'live', events?: string[]) =>
    (
      await createEndpoint(t.storage, t.clock.fn, OPEN, {
        workspaceId: t.workspaceId,
        url: 'http://127.0.0.1:9/hook',
        mode,
        contactsMasked: false,
        ...(events ? { events } : {}),
        createdBy: 'test',
      })
    ).endpoint.id;

  const waiting = () =>
    t.storage.db.selectFrom('change_log').select(['object_id', 'event']).where('event', 'is not', null).execute();
  const deliveries = () =>
    t.storage.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .select(['d.endpoint_id', 'e.id', 'e.type', 'e.payload'])
      .execute();

  it("a write's event waits in its change-log row until a claim makes its deliveries, to the endpoints that take it", async () => {
    const all = await endpoint('test');
    const updatesOnly = await endpoint('test', ['customer.updated']);
    const disabled = await endpoint('test');
    await setEndpointStatus(t.storage, t.clock.fn, t.workspaceId, disabled, 'disabled');
    await endpoint('live');
    t.clock.now += 1;
    const c = await createCustomer(t, t.keys.test);
    // Made after the change (beyond the margin for clocks): it receives what happens afterwards only.
    t.clock.now += 10_000;
    const later = await endpoint('test');

    const [row, ...others] = await waiting();
    expect(others).toEqual([]);
    expect(row!.object_id).toBe(c.id);
    const event = JSON.parse(row!.event!) as { id: string; type: string; data: { object: unknown } };
    expect(event.type).toBe('customer.created');
    expect(event.data.object).toEqual(c);
    expect(await deliveries()).toEqual([]);

    const made = await t.storage.write((tx) => fanOutEvents(tx, t.storage.engine, 10));
    expect(made).toEqual({ taken: 1, unreadable: [] });
    const rows = await deliveries();
    expect(rows).toEqual([{ endpoint_id: all, id: event.id, type: 'customer.created', payload: row!.event }]);
    expect(await waiting()).toEqual([]);
    expect(rows.map((r) => r.endpoint_id)).not.toContain(updatesOnly);
    expect(rows.map((r) => r.endpoint_id)).not.toContain(later);
  });

  it('an event no endpoint takes any longer is dropped, with nothing written', async () => {
    const id = await endpoint('test');
    await createCustomer(t, t.keys.test);
    await deleteEndpoint(t.storage, t.workspaceId, id);
    expect(await waiting()).toHaveLength(1);
    expect(await t.storage.write((tx) => fanOutEvents(tx, t.storage.engine, 10))).toEqual({
      taken: 1,
      unreadable: [],
    });
    expect(await waiting()).toEqual([]);
    expect(await deliveries()).toEqual([]);
  });

  it('an endpoint disabled since the change gets its delivery, which waits for it to be enabled', async () => {
    const id = await endpoint('test');
    await createCustomer(t, t.keys.test);
    t.clock.now += 1;
    await setEndpointStatus(t.storage, t.clock.fn, t.workspaceId, id, 'disabled');
    await t.storage.write((tx) => fanOutEvents(tx, t.storage.engine, 10));
    expect((await deliveries()).map((d) => [d.endpoint_id, d.type])).toEqual([[id, 'customer.created']]);
    const [delivery] = await t.storage.db.selectFrom('webhook_deliveries').select('status').execute();
    expect(delivery?.status).toBe('pending');
  });

  it('a waiting event that is not JSON is cleared and named, and holds up no other', async () => {
    await endpoint('test');
    const c = await createCustomer(t, t.keys.test);
    t.clock.now += 1;
    expect((await patch(t, t.keys.test, c.id, { nickname: 'After' })).statusCode).toBe(200);
    const [broken] = await t.storage.db
      .selectFrom('change_log')
      .select('id')
      .where('event', 'is not', null)
      .orderBy('at')
      .execute();
    await t.storage.db.updateTable('change_log').set({ event: '{not json' }).where('id', '=', broken!.id).execute();
    const made = await t.storage.write((tx) => fanOutEvents(tx, t.storage.engine, 10));
    expect(made.taken).toBe(2);
    expect(made.unreadable).toEqual([broken!.id]);
    expect((await deliveries()).map((d) => d.type)).toEqual(['customer.updated']);
    expect(await waiting()).toEqual([]);
  });

  it('events are made oldest first, at most as many as asked for', async () => {
    const id = await endpoint('test');
    const c = await createCustomer(t, t.keys.test);
    for (const nickname of ['One', 'Two']) {
      t.clock.now += 1;
      expect((await patch(t, t.keys.test, c.id, { nickname })).statusCode).toBe(200);
    }
    expect(await waiting()).toHaveLength(3);
    await t.storage.write((tx) => fanOutEvents(tx, t.storage.engine, 2));
    expect((await deliveries()).map((d) => d.type)).toEqual(['customer.created', 'customer.updated']);
    expect(await waiting()).toHaveLength(1);
    await t.storage.write((tx) => fanOutEvents(tx, t.storage.engine, 2));
    const rows = await deliveries();
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.endpoint_id === id)).toBe(true);
    const last = JSON.parse(rows.at(-1)!.payload) as { data: { object: { nickname: string } } };
    expect(last.data.object.nickname).toBe('Two');
  });

  it('while the process is busy, the worker makes deliveries at the busy rate, a batch at a time, and makes them all', async () => {
    await endpoint('test');
    const busy = true;
    const sent: string[] = [];
    const w = new WebhookDeliveryWorker({
      store: t.storage,
      engine: t.storage.engine,
      clock: t.clock.fn,
      mail: { smtpUrl: null, mailFrom: 'test@example.com' },
      allowPrivate: true,
      retrySchedule: [5],
      pollMs: 60_000,
      yieldTo: { busy: () => busy, stop: () => undefined },
      busyStartsPerSecond: 20,
      send: async (_url, _body, headers): Promise<AttemptResult> => {
        sent.push(headers['webhook-id']!);
        return { ok: true, status: 204, error: null };
      },
    });
    workers.push(w);
    for (let i = 0; i < 30; i++) await createCustomer(t, t.keys.test, { first_name: `Busy ${i}` });
    expect(await waiting()).toHaveLength(30);
    w.start();
    // A second's share (20) at once, then nothing until the next second's has built up.
    await expect.poll(async () => (await waiting()).length, { timeout: 5_000, interval: 20 }).toBe(10);
    expect(await deliveries()).toHaveLength(20);
    await new Promise((r) => setTimeout(r, 300));
    expect(await waiting()).toHaveLength(10);
    await expect.poll(async () => (await waiting()).length, { timeout: 5_000, interval: 50 }).toBe(0);
    // Each sent, at the busy rate too.
    await expect.poll(() => new Set(sent).size, { timeout: 10_000, interval: 50 }).toBe(30);
  });
});

describe.runIf(ENGINES.includes('postgres'))('events riding in change-log rows, two processes (postgres)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp('postgres');
  });
  afterAll(() => t?.close());

  it("two processes making deliveries at once make each event's once", async () => {
    await createEndpoint(t.storage, t.clock.fn, OPEN, {
      workspaceId: t.workspaceId,
      url: 'http://127.0.0.1:9/hook',
      mode: 'test',
      contactsMasked: false,
      createdBy: 'test',
    });
    for (let i = 0; i < 40; i++) await createCustomer(t, t.keys.test, { first_name: `Twice ${i}` });
    const other = await openStorage(t.storage.url);
    try {
      const made = await Promise.all(
        [t.storage, other, t.storage, other].map((s) => s.write((tx) => fanOutEvents(tx, s.engine, 15))),
      );
      expect(made.reduce((n, m) => n + m.taken, 0)).toBe(40);
    } finally {
      await other.close();
    }
    const rows = await t.storage.db.selectFrom('webhook_deliveries').select('event_id').execute();
    expect(rows).toHaveLength(40);
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(40);
  });
});
