import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importRecords } from '../../src/import/import.service.ts';
import { memorySource } from '../../src/import/reader.ts';
import { WebhookWorker } from '../../src/jobs/webhook-worker.ts';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { recordEvents } from '../../src/resources/webhook-events/event.repo.ts';
import {
  createEndpoint,
  endpointDeliveries,
  resendDelivery,
  sendTestEvent,
} from '../../src/resources/webhooks/webhook.service.ts';
import { addStaff } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, del, get, makeList, makeTag, patch, post } from '../helpers/writes.ts';
import * as r from '../import/records.ts';
import { payloadChecker } from './payload-schemas.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const OPEN = { allowHttp: true, allowPrivate: true };

describe.each(ENGINES)('webhook delivery on %s', (engine) => {
  let t: TestApp;
  let receiver: Receiver;
  const workers: WebhookWorker[] = [];
  let check: (bodies: readonly any[]) => string[];
  beforeAll(async () => {
    t = await makeTestApp(engine);
    receiver = await startReceiver();
    check = await payloadChecker(t);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
    // Whatever a test made the API send is what the OpenAPI document (and so the client's types) says.
    expect(check(receiver.received.map((r) => r.body))).toEqual([]);
    await t.storage.db.deleteFrom('webhook_deliveries').execute();
    await t.storage.db.deleteFrom('webhook_endpoints').execute();
    receiver.received.length = 0;
    receiver.answer = () => ({ status: 204 });
    // Receivers refuse signatures whose timestamp is far from their own clock.
    t.clock.now = Date.now();
  });

  function worker(options: { schedule?: number[]; allowPrivate?: boolean } = {}) {
    const w = new WebhookWorker({
      store: t.storage,
      engine: t.storage.engine,
      clock: t.clock.fn,
      mail: { smtpUrl: null, mailFrom: 'test@example.com' },
      allowPrivate: options.allowPrivate ?? true,
      retrySchedule: options.schedule ?? [5, 300],
    });
    workers.push(w);
    return w;
  }

  async function endpoint(
    mode: 'test' | 'live',
    extra: { contactsMasked?: boolean; events?: string[]; path?: string } = {},
  ) {
    const made = await createEndpoint(t.storage, t.clock.fn, OPEN, {
      workspaceId: t.workspaceId,
      url: receiver.url(extra.path),
      mode,
      contactsMasked: extra.contactsMasked ?? false,
      ...(extra.events ? { events: extra.events } : {}),
      createdBy: 'test',
    });
    receiver.secret = made.secret;
    return made;
  }

  const bodies = () => receiver.received.map((r) => r.body);

  it('create, update (a field, a tag, a list) and delete each reach the receiver, signed, with what GET shows', async () => {
    await endpoint('test');
    const w = worker();
    const tag = await makeTag(t, 'Regular');
    const list = await makeList(t, 'News');
    const c = await createCustomer(t, t.keys.test, { last_name: 'Hopper', email: 'grace@example.com' });
    await w.drain();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.verified).toBe(true);
    expect(bodies()[0]).toMatchObject({ object: 'webhook_event', type: 'customer.created', livemode: false });
    expect(bodies()[0].id).toMatch(/^whe_/);
    expect(bodies()[0].id).toBe(receiver.received[0]!.id);
    expect(bodies()[0].data.object).toEqual((await get(t, t.keys.test, c.id)).json());

    await patch(t, t.keys.test, c.id, { nickname: 'Amazing', address: { suburb: 'Arlington' } });
    await w.drain();
    const updated = bodies()[1];
    expect(updated.type).toBe('customer.updated');
    expect(updated.data.object).toEqual((await get(t, t.keys.test, c.id)).json());
    expect(updated.data.previous_attributes).toEqual({
      nickname: null,
      address: { ...updated.data.object.address, suburb: null },
    });

    await post(t, t.keys.test, `/customers/${c.id}/tags`, { tag });
    await w.drain();
    const tagged = bodies()[2];
    expect(tagged.type).toBe('customer.updated');
    expect(tagged.data.object.tags.map((x: { id: string }) => x.id)).toEqual([tag]);
    expect(tagged.data.previous_attributes).toEqual({ tags: [] });
    expect(tagged.data.object).toEqual((await get(t, t.keys.test, c.id)).json());

    await post(t, t.keys.test, `/customers/${c.id}/lists`, { list });
    await del(t, t.keys.test, `/customers/${c.id}/tags/${tag}`);
    await w.drain();
    // Order is not guaranteed (DECISIONS "Webhooks"): receivers order by created_at.
    const listed = bodies().find((b) => 'lists' in (b.data.previous_attributes ?? {}))!;
    expect(listed.data.previous_attributes).toEqual({ lists: [] });
    const untagged = bodies().find((b) => b.data.previous_attributes?.tags?.length === 1)!;
    expect(untagged.data.object.tags).toEqual([]);
    expect(untagged.data.previous_attributes.tags).toEqual([tagged.data.object.tags[0]]);

    expect((await del(t, t.keys.test, `/customers/${c.id}`)).statusCode).toBe(200);
    await w.drain();
    expect(bodies()[5]).toMatchObject({
      type: 'customer.deleted',
      data: { object: { id: c.id, object: 'customer', deleted: true } },
    });
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(6);
  });

  it('previous_attributes is every top-level field GET showed otherwise just before: a date of birth moves adult too', async () => {
    await endpoint('test');
    const w = worker();
    const c = await createCustomer(t, t.keys.test, { last_name: 'Born' });
    expect(c.adult).toBe(null);
    await patch(t, t.keys.test, c.id, { date_of_birth: '1990-01-01' });
    await w.drain();
    const updated = bodies().find((b) => b.type === 'customer.updated');
    expect(updated.data.object).toMatchObject({ date_of_birth: '1990-01-01', adult: true });
    expect(updated.data.previous_attributes).toEqual({ date_of_birth: null, adult: null });
  });

  it('an undo sends the customer as it is after the undo', async () => {
    await endpoint('test');
    const w = worker();
    const key = await t.makeKey({ name: 'to undo', mode: 'test' });
    const c = await createCustomer(t, t.keys.test, { last_name: 'Before' });
    await patch(t, key, c.id, { last_name: 'After' });
    await undoKeyChanges(t.storage, key.id, { by: { kind: 'operator', id: 'tester' }, clock: t.clock.fn });
    await w.drain();
    const last = bodies().find((b) => b.data.previous_attributes?.last_name === 'After');
    expect(last.type).toBe('customer.updated');
    expect(last.data.object.last_name).toBe('Before');
    expect(last.data.previous_attributes).toEqual({ last_name: 'After' });
    expect(last.data.object).toEqual((await get(t, t.keys.test, c.id)).json());
  });

  it('a contacts-masked endpoint never sees a full email or phone', async () => {
    await endpoint('test', { contactsMasked: true });
    const w = worker();
    const c = await createCustomer(t, t.keys.test, { email: 'masked.person@example.com', phone: '+61 412 345 678' });
    await patch(t, t.keys.test, c.id, { nickname: 'M' });
    await w.drain();
    const text = JSON.stringify(bodies());
    expect(text).not.toContain('masked.person@example.com');
    expect(text).not.toContain('412345678');
    expect(bodies()[0].data.object.email).toBe('m***@example.com');
    expect(bodies()[0].data.object.phone).toMatch(/^\+\*+78$/);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
  });

  it('test changes go only to test endpoints, live only to live', async () => {
    await endpoint('live', { path: '/live' });
    const live = receiver.secret;
    await endpoint('test', { path: '/test' });
    const w = worker();
    await createCustomer(t, t.keys.test, { last_name: 'Testy' });
    await w.drain();
    expect(receiver.received.map((r) => r.path)).toEqual(['/test']);
    expect(bodies()[0].livemode).toBe(false);
    receiver.secret = live;
    await createCustomer(t, t.keys.live, { last_name: 'Livy' });
    await w.drain();
    expect(receiver.received.map((r) => r.path)).toEqual(['/test', '/live']);
    expect(bodies()[1].livemode).toBe(true);
    expect(receiver.received[1]!.verified).toBe(true);
  });

  it('an endpoint gets only the types it subscribed to', async () => {
    await endpoint('test', { events: ['customer.deleted'] });
    const w = worker();
    const c = await createCustomer(t, t.keys.test);
    await del(t, t.keys.test, `/customers/${c.id}`);
    await w.drain();
    expect(bodies().map((b) => b.type)).toEqual(['customer.deleted']);
  });

  it('no event is left behind by a change that rolled back', async () => {
    await endpoint('test');
    const before = await t.storage.db.selectFrom('webhook_events').select('id').execute();
    await expect(
      t.storage.write(async (tx) => {
        await recordEvents(tx, t.storage.engine, { workspaceId: t.workspaceId, livemode: false }, [
          { type: 'customer.created', at: t.clock.now, object: { id: 'cus_x' } },
        ]);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await t.storage.db.selectFrom('webhook_events').select('id').execute()).toEqual(before);
    expect(await t.storage.db.selectFrom('webhook_deliveries').select('id').execute()).toEqual([]);
  });

  it('a receiver that answers 500 twice then 200 gets the event three times with the same webhook-id', async () => {
    const { endpoint: e } = await endpoint('test');
    receiver.answer = (n) => ({ status: n <= 2 ? 500 : 200 });
    const w = worker({ schedule: [5, 60] });
    await createCustomer(t, t.keys.test);
    await w.drain();
    let [d] = await endpointDeliveries(t.storage.db, t.workspaceId, e.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'answered 500' });
    t.clock.now += 5_000;
    await w.drain();
    t.clock.now += 60_000;
    await w.drain();
    [d] = await endpointDeliveries(t.storage.db, t.workspaceId, e.id);
    expect(d).toMatchObject({
      status: 'delivered',
      attempts: 3,
      last_status: 200,
      last_error: null,
      next_attempt_at: null,
    });
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(1);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
  });

  it('after the last retry a delivery is failed; Resend makes one more attempt', async () => {
    const { endpoint: e } = await endpoint('test');
    receiver.answer = () => ({ status: 503 });
    const w = worker({ schedule: [1] });
    await createCustomer(t, t.keys.test);
    await w.drain();
    t.clock.now += 1_000;
    await w.drain();
    t.clock.now += 3_600_000;
    await w.drain();
    let [d] = await endpointDeliveries(t.storage.db, t.workspaceId, e.id);
    expect(d).toMatchObject({ status: 'failed', attempts: 2, last_status: 503, next_attempt_at: null });
    expect(receiver.received).toHaveLength(2);
    receiver.answer = () => ({ status: 200 });
    await resendDelivery(t.storage, t.clock.fn, t.workspaceId, e.id, d!.event);
    await w.drain();
    [d] = await endpointDeliveries(t.storage.db, t.workspaceId, e.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 3 });
  });

  it('a redirect is not followed', async () => {
    const { endpoint: e } = await endpoint('test');
    receiver.answer = (_n, path) =>
      path === '/hook' ? { status: 302, headers: { location: receiver.url('/elsewhere') } } : { status: 200 };
    const w = worker();
    await createCustomer(t, t.keys.test);
    await w.drain();
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
    const [d] = await endpointDeliveries(t.storage.db, t.workspaceId, e.id);
    expect(d).toMatchObject({ status: 'pending', last_status: 302, last_error: 'redirect (302) not followed' });
  });

  it('a name resolving to loopback is refused at connect time without WEBHOOK_ALLOW_PRIVATE, its address unnamed', async () => {
    const made = await createEndpoint(t.storage, t.clock.fn, OPEN, {
      workspaceId: t.workspaceId,
      url: `http://localhost:${receiver.port}/hook`,
      mode: 'test',
      contactsMasked: false,
      createdBy: 'test',
    });
    const w = worker({ allowPrivate: false });
    await createCustomer(t, t.keys.test);
    await w.drain();
    expect(receiver.received).toHaveLength(0);
    const [d] = await endpointDeliveries(t.storage.db, t.workspaceId, made.endpoint.id);
    expect(d!.last_error).toBe('refused at connect: localhost resolved to a private address');
    expect(d!.last_status).toBeNull();
  });

  it('Send test event delivers a webhook.test event to that endpoint', async () => {
    const { endpoint: e } = await endpoint('live');
    const w = worker();
    await sendTestEvent(t.storage, t.clock.fn, t.workspaceId, e.id);
    await w.drain();
    expect(bodies()).toHaveLength(1);
    expect(bodies()[0]).toMatchObject({ type: 'webhook.test', livemode: true, data: { object: { id: e.id } } });
    expect(receiver.received[0]!.verified).toBe(true);
  });

  it('a delivery claimed by a process that died is delivered once its claim runs out', async () => {
    await endpoint('test');
    await createCustomer(t, t.keys.test);
    // A process claimed the delivery and was killed before attempting.
    await t.storage.db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: t.clock.now + 30_000 })
      .execute();
    const w = worker();
    await w.drain();
    expect(receiver.received).toHaveLength(0);
    t.clock.now += 31_000;
    await w.drain();
    expect(receiver.received).toHaveLength(1);
  });

  it('the feed holds what a live endpoint was sent in the same period, the same objects', async () => {
    await endpoint('live');
    t.clock.now += 1_000;
    const since = new Date(t.clock.now).toISOString();
    const made = await createCustomer(t, t.keys.live, { first_name: 'Feed' });
    await patch(t, t.keys.live, made.id, { nickname: 'Agrees' });
    await del(t, t.keys.live, `/customers/${made.id}`);
    await worker().drain();
    const sent = receiver.received.map((r) => r.body);
    const page = await t.call(t.keys.live, {
      method: 'GET',
      url: `/webhook-events?created_since=${encodeURIComponent(since)}`,
    });
    const feed = page.json().data as { id: string }[];
    expect(feed.map((e) => e.id).sort()).toEqual(sent.map((b: { id: string }) => b.id).sort());
    expect([...feed].sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      [...sent].sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)),
    );
  });

  it('a change with no endpoint of its mode writes its event (the feed has it) and no delivery', async () => {
    await endpoint('live');
    const count = async (table: 'webhook_events' | 'webhook_deliveries') =>
      (await t.storage.db.selectFrom(table).select('id').execute()).length;
    const [events, deliveries] = [await count('webhook_events'), await count('webhook_deliveries')];
    await createCustomer(t, t.keys.test);
    expect(await count('webhook_events')).toBe(events + 1);
    expect(await count('webhook_deliveries')).toBe(deliveries);
  });

  it('an endpoint whose every delivery failed for 3 days is disabled and its key managers are emailed, after a warning at one day', async () => {
    await addStaff(t.storage, t.clock.fn, {
      workspaceId: t.workspaceId,
      email: `km-${engine}@example.com`,
      name: 'Kim',
      role: 'key_manager',
    });
    const { endpoint: e } = await endpoint('test');
    receiver.answer = () => ({ status: 500 });
    const w = worker({ schedule: [86_400, 86_400, 86_400, 86_400] });
    await createCustomer(t, t.keys.test);
    await w.drain();
    for (let day = 1; day <= 3; day++) {
      t.clock.now += 86_400_000;
      await w.drain();
    }
    const row = await t.storage.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', e.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('disabled');
    const mail = await t.storage.db
      .selectFrom('outbox')
      .selectAll()
      .where('recipient', '=', `km-${engine}@example.com`)
      .orderBy('created_at')
      .execute();
    expect(mail.map((m) => m.subject)).toEqual([
      `Webhook endpoint ${e.url} is failing`,
      `Webhook endpoint ${e.url} was disabled`,
    ]);
    // A disabled endpoint's pending delivery waits: nothing more is attempted.
    const attempts = receiver.received.length;
    t.clock.now += 86_400_000;
    await w.drain();
    expect(receiver.received).toHaveLength(attempts);
  });

  it('DELETE /test-data tells what a membership it removed was, from the customer as GET showed it', async () => {
    await endpoint('test');
    const w = worker();
    const tag = await makeTag(t, 'Trial');
    const c = r.customer({ livemode: false, last_name: 'Imported' });
    const source = memorySource(r.ndjson([c]));
    expect(
      (await importRecords(t.storage, { workspaceId: t.workspaceId, source, clock: t.clock.fn })).bad_lines,
    ).toEqual([]);
    await post(t, t.keys.test, `/customers/${c.id}/tags`, { tag });
    const tagged = (await get(t, t.keys.test, c.id as string)).json();
    expect(tagged.tags.map((x: { id: string }) => x.id)).toEqual([tag]);
    await w.drain();
    receiver.received.length = 0;
    expect((await del(t, t.keys.test, '/test-data')).statusCode).toBe(200);
    await w.drain();
    const removed = bodies().find((b) => b.data.object.id === c.id);
    expect(removed.type).toBe('customer.updated');
    expect(removed.data.object).toEqual((await get(t, t.keys.test, c.id as string)).json());
    expect(removed.data.previous_attributes).toEqual({ tags: tagged.tags });
  });
});
