import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertTicket } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, ids, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /tickets on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/tickets',
    collection: 'tickets',
    prefix: 'tkt',
    mode: 'live-only',
    insert: insertTicket,
    otherKindId: newId('event'),
  });

  it('answers every SPEC field, nulls included', async () => {
    const tn = await newTenant(t);
    const bare = await insertTicket(t.storage.db, tn.liveRows, {
      event: null,
      event_date: null,
      order: null,
      customer: null,
      attendee_name: null,
      status: null,
      checked_in_at: null,
    });
    const used = await insertTicket(t.storage.db, tn.liveRows, {
      status: 'used',
      checked_in_at: '2026-05-01T09:05:00.000Z',
    });
    const res = await get(t, tn.live, '/tickets');
    expect(res.body.data).toEqual([used, bare]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'id',
        'object',
        'event',
        'event_date',
        'order',
        'customer',
        'attendee_name',
        'status',
        'checked_in_at',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect((await get(t, tn.live, `/tickets/${bare.id}`)).body).toEqual(bare);
  });

  it('filters by event, customer and order, alone and together', async () => {
    const tn = await newTenant(t);
    const [evtA, cusA, ordA] = [newId('event'), newId('customer'), newId('order')];
    const k1 = await insertTicket(t.storage.db, tn.liveRows, { event: evtA, customer: cusA, order: ordA });
    const k2 = await insertTicket(t.storage.db, tn.liveRows, { event: evtA, customer: null, order: ordA });
    const k3 = await insertTicket(t.storage.db, tn.liveRows, { event: newId('event'), customer: cusA });
    await insertTicket(t.storage.db, tn.liveRows);

    const list = async (q: string) => ids((await get(t, tn.live, `/tickets?${q}`)).body.data);
    expect(await list(`event=${evtA}`)).toEqual(ids([k2, k1]));
    expect(await list(`customer=${cusA}`)).toEqual(ids([k3, k1]));
    expect(await list(`order=${ordA}`)).toEqual(ids([k2, k1]));
    expect(await list(`event=${newId('event')}`)).toEqual([]);
    expect(await list(`customer=${newId('customer')}`)).toEqual([]);
    expect(await list(`order=${newId('order')}`)).toEqual([]);
    expect(await list(`event=${evtA}&customer=${cusA}`)).toEqual([k1.id]);
    expect(await list(`order=${ordA}&customer=${cusA}&event=${evtA}`)).toEqual([k1.id]);
    // A test key still gets nothing, whatever the filter.
    expect((await get(t, tn.test, `/tickets?event=${evtA}`)).body.data).toEqual([]);
  });

  it('a malformed filter id is a 400', async () => {
    const tn = await newTenant(t);
    for (const q of ['event=evt_1', `event=${newId('event_date')}`, `customer=${newId('ticket')}`, 'order=ord']) {
      const res = await get(t, tn.live, `/tickets?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    }
  });
});
