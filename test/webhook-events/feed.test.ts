import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeEvents } from '../../src/jobs/retention.ts';
import { DAY_MS } from '../../src/lib/time.ts';
import { recordEvents } from '../../src/resources/webhook-events/event.repo.ts';
import { createEndpoint } from '../../src/resources/webhooks/webhook.service.ts';
import { seedWorkspace } from '../../src/seed/seed.service.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { insertVenue } from '../helpers/fixtures.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, del, patch, roomy } from '../helpers/writes.ts';

/** The events feed (DECISIONS "Events feed"): what each key sees, filters, cursor, masking, retention. */
describe.each(ENGINES)('GET /webhook-events on %s', (engine) => {
  let t: TestApp;
  const feed = async (key: TestKey, query = '') => {
    const res = await t.call(key, { method: 'GET', url: `/webhook-events${query}` });
    return { status: res.statusCode, body: res.json() };
  };
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every customer change makes one event, with no endpoint, newest first, as a delivery would carry it', async () => {
    const since = new Date(t.clock.now).toISOString();
    const made = await createCustomer(t, t.keys.live, { email: 'ada@example.com', last_name: 'Lovelace' });
    t.clock.now += 1_000;
    const changed = await patch(t, t.keys.live, made.id, { nickname: 'Countess' });
    expect(changed.statusCode).toBe(200);
    t.clock.now += 1_000;
    expect((await del(t, t.keys.live, `/customers/${made.id}`)).statusCode).toBe(200);
    const { status, body } = await feed(t.keys.live, `?created_since=${encodeURIComponent(since)}`);
    expect(status).toBe(200);
    expect(body.data.map((e: { type: string }) => e.type)).toEqual([
      'customer.deleted',
      'customer.updated',
      'customer.created',
    ]);
    const [deleted, updated, created] = body.data;
    expect(created).toMatchObject({ object: 'webhook_event', livemode: true, data: { object: made } });
    expect(created.id).toMatch(/^whe_[0-9A-Za-z]{22}$/);
    expect(updated.data.object).toEqual(changed.json());
    expect(updated.data.previous_attributes).toEqual({ nickname: null });
    expect(deleted.data.object).toEqual({ id: made.id, object: 'customer', deleted: true });
    // One event is served alone, the same object.
    const one = await t.call(t.keys.live, { method: 'GET', url: `/webhook-events/${created.id}` });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(created);
    expect(one.headers.etag).toBe(`"${created.id}"`);
    const again = await t.call(t.keys.live, {
      method: 'GET',
      url: `/webhook-events/${created.id}`,
      headers: { 'if-none-match': `"${created.id}"` },
    });
    expect(again.statusCode).toBe(304);
  });

  it('a key sees its own mode only, and an event of the other mode is 404', async () => {
    t.clock.now += 1_000;
    const since = new Date(t.clock.now).toISOString();
    await createCustomer(t, t.keys.test, { first_name: 'Test only' });
    const live = await feed(t.keys.live, `?created_since=${encodeURIComponent(since)}`);
    expect(live.body.data).toEqual([]);
    const test = await feed(t.keys.test, `?created_since=${encodeURIComponent(since)}`);
    expect(test.body.data).toHaveLength(1);
    expect(test.body.data[0].livemode).toBe(false);
    const other = await t.call(t.keys.live, { method: 'GET', url: `/webhook-events/${test.body.data[0].id}` });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('not_found');
  });

  it('a restricted key without customers sees no customer event; a read-only key reads the feed', async () => {
    t.clock.now += 1_000;
    const since = new Date(t.clock.now).toISOString();
    const made = await createCustomer(t, t.keys.live);
    const venue = await insertVenue(t.storage.db, { workspaceId: t.workspaceId });
    await t.storage.write((tx) =>
      recordEvents(tx, t.storage.engine, { workspaceId: t.workspaceId, livemode: true }, [
        { type: 'venue.created', at: t.clock.now, object: venue },
      ]),
    );
    const venuesOnly = await t.makeKey({
      mode: 'live',
      access: 'read',
      restricted: { canRead: ['venues'], canWrite: [] },
    });
    const seen = await feed(venuesOnly, `?created_since=${encodeURIComponent(since)}`);
    expect(seen.body.data.map((e: { type: string }) => e.type)).toEqual(['venue.created']);
    const [event] = (await feed(t.keys.liveRead, `?type=customer.created&created_since=${encodeURIComponent(since)}`))
      .body.data;
    expect(event.data.object.id).toBe(made.id);
    const hidden = await t.call(venuesOnly, { method: 'GET', url: `/webhook-events/${event.id}` });
    expect(hidden.statusCode).toBe(404);
  });

  it('a contacts_masked key gets the event masked as its records are', async () => {
    t.clock.now += 1_000;
    const since = new Date(t.clock.now).toISOString();
    const made = await createCustomer(t, t.keys.live, { email: 'grace.hopper@example.com' });
    const changed = await patch(t, t.keys.live, made.id, { phone: '+61412345678' });
    expect(changed.statusCode, changed.body).toBe(200);
    const masked = await t.makeKey({ mode: 'live', access: 'read', contactsMasked: true });
    const { status, body } = await feed(masked, `?type=customer.updated&created_since=${encodeURIComponent(since)}`);
    expect(status, JSON.stringify(body)).toBe(200);
    const text = JSON.stringify(body);
    expect(text).not.toContain('grace.hopper@');
    expect(text).not.toContain('412345678');
    expect(body.data[0].data.object.email).toMatch(/^g\*+@example\.com$/);
    expect(body.data[0].data.object.phone).toMatch(/^\+\*+78$/);
    expect(body.data[0].data.previous_attributes).toEqual({ phone: null });
  });

  it('pages with the cursor, filters by types, and refuses what it does not know', async () => {
    t.clock.now += 1_000;
    const since = new Date(t.clock.now).toISOString();
    for (let i = 0; i < 5; i++) {
      t.clock.now += 10;
      await createCustomer(t, t.keys.live, { first_name: `Page ${i}` });
    }
    const q = `created_since=${encodeURIComponent(since)}&type=customer.created,customer.deleted`;
    const first = await feed(t.keys.live, `?limit=2&${q}`);
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    const ids: string[] = first.body.data.map((e: { id: string }) => e.id);
    let cursor = first.body.next_cursor;
    while (cursor) {
      const next = await feed(t.keys.live, `?limit=2&${q}&starting_after=${encodeURIComponent(cursor)}`);
      ids.push(...next.body.data.map((e: { id: string }) => e.id));
      cursor = next.body.next_cursor;
    }
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    for (const bad of [
      '?type=webhook.test',
      '?type=customer.exploded',
      '?created_since=yesterday',
      '?updated_since=2026-01-01T00:00:00Z',
      `?limit=2&type=customer.updated&starting_after=${encodeURIComponent(first.body.next_cursor)}`,
    ]) {
      const res = await feed(t.keys.live, bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.code, bad).toBe('invalid_request');
    }
    expect((await t.call(t.keys.live, { method: 'GET', url: '/webhook-events/whe_nope' })).statusCode).toBe(404);
  });

  it('the purge drops events past EVENT_RETENTION_DAYS, but never one with a delivery pending', async () => {
    await createEndpoint(
      t.storage,
      t.clock.fn,
      { allowHttp: true, allowPrivate: true },
      {
        workspaceId: t.workspaceId,
        url: 'http://127.0.0.1:9/hook',
        mode: 'test',
        contactsMasked: false,
        createdBy: 'test',
      },
    );
    const old = t.clock.now;
    const pending = await createCustomer(t, t.keys.test, { first_name: 'Pending' });
    const live = await createCustomer(t, t.keys.live, { first_name: 'Old' });
    t.clock.now += 31 * DAY_MS;
    await createCustomer(t, t.keys.live, { first_name: 'Recent' });
    await purgeEvents(t.storage, t.clock.fn, 30);
    const left = await t.storage.db.selectFrom('webhook_events').select(['created_at', 'payload']).execute();
    expect(left.some((e) => e.payload.includes(live.id))).toBe(false);
    expect(left.some((e) => e.payload.includes(pending.id))).toBe(true);
    expect(left.every((e) => e.created_at >= old || e.payload.includes(pending.id))).toBe(true);
    expect(left.some((e) => e.payload.includes('Recent'))).toBe(true);
  });

  it('seed makes demo data and no event', async () => {
    const count = async () => (await t.storage.db.selectFrom('webhook_events').select('id').execute()).length;
    const before = await count();
    await seedWorkspace(t.storage, { workspaceId: t.workspaceId, customers: 20 });
    expect(await count()).toBe(before);
  });
});
