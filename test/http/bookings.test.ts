import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertBooking } from '../helpers/fixtures.ts';
import { describeReadContract, newestFirst } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, ids, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /bookings on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/bookings',
    collection: 'bookings',
    prefix: 'bkg',
    mode: 'mode',
    insert: insertBooking,
    otherKindId: newId('order'),
  });

  it('answers every SPEC field, nested shapes included', async () => {
    const tn = await newTenant(t);
    const blocked = await insertBooking(t.storage.db, tn.liveRows, {
      status: { name: null, type: null },
      scheduled_at: null,
      local_date: null,
      local_time: null,
      timezone: null,
      duration_minutes: null,
      people: [],
      lines: [],
      source: null,
      blocked: true,
      checked_in_at: '2026-04-10T08:20:00.000Z',
      hold_expires_at: '2026-04-09T00:00:00.000Z',
    });
    const full = await insertBooking(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, '/bookings');
    expect(res.body).toEqual({ object: 'list', data: [full, blocked], has_more: false });
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'id',
        'object',
        'number',
        'venue',
        'status',
        'scheduled_at',
        'local_date',
        'local_time',
        'timezone',
        'duration_minutes',
        'guests',
        'people',
        'lines',
        'source',
        'blocked',
        'checked_in_at',
        'hold_expires_at',
        'livemode',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(res.body.data[0].people[0]).toEqual({
      customer: full.people[0]!.customer,
      primary: true,
      adult: true,
      role: 'organiser',
      checked_in_at: null,
    });
    expect(res.body.data[0].lines[0].product).toMatchObject({ object: 'activity', name: 'Ten-pin bowling' });
    expect((await get(t, tn.live, `/bookings/${blocked.id}`)).body).toEqual(blocked);
  });

  it('filters by venue and by number, alone and together', async () => {
    const tn = await newTenant(t);
    const [venueA, venueB] = [newId('venue'), newId('venue')];
    const a1 = await insertBooking(t.storage.db, tn.liveRows, { venue: venueA, number: 'HL-1' });
    const a2 = await insertBooking(t.storage.db, tn.liveRows, { venue: venueA, number: 'HL-2' });
    const b1 = await insertBooking(t.storage.db, tn.liveRows, { venue: venueB, number: 'HL-1' });
    // The same venue and number in test mode is not the live key's.
    await insertBooking(t.storage.db, tn.testRows, { venue: venueA, number: 'HL-1' });

    const list = async (q: string) => ids((await get(t, tn.live, `/bookings?${q}`)).body.data);
    expect(await list(`venue=${venueA}`)).toEqual(ids([a2, a1]));
    expect(await list(`venue=${venueB}`)).toEqual([b1.id]);
    expect(await list(`venue=${newId('venue')}`)).toEqual([]);
    expect(await list('number=HL-1')).toEqual(ids([b1, a1]));
    expect(await list('number=hl-1')).toEqual([]);
    expect(await list('number=HL-3')).toEqual([]);
    expect(await list(`venue=${venueA}&number=HL-1`)).toEqual([a1.id]);
    expect(await list(`venue=${venueB}&number=HL-2`)).toEqual([]);
  });

  it('scheduled_from is inclusive, scheduled_to exclusive, with any offset; unscheduled never match', async () => {
    const tn = await newTenant(t);
    const at = (iso: string) => insertBooking(t.storage.db, tn.liveRows, { scheduled_at: iso });
    const nine = await at('2026-04-10T09:00:00.000Z');
    const ten = await at('2026-04-10T10:00:00.000Z');
    const eleven = await at('2026-04-10T11:00:00.000Z');
    await insertBooking(t.storage.db, tn.liveRows, { scheduled_at: null });

    const list = async (q: string) => ids((await get(t, tn.live, `/bookings?${q}`)).body.data);
    expect(await list('scheduled_from=2026-04-10T10:00:00Z')).toEqual(ids([eleven, ten]));
    expect(await list('scheduled_from=2026-04-10T20:00:00%2B10:00')).toEqual(ids([eleven, ten]));
    expect(await list('scheduled_from=2026-04-10T10:00:00.001Z')).toEqual([eleven.id]);
    expect(await list('scheduled_to=2026-04-10T10:00:00Z')).toEqual([nine.id]);
    expect(await list('scheduled_to=2026-04-10T05:00:00-05:00')).toEqual([nine.id]);
    expect(await list('scheduled_from=2026-04-10T09:00:00Z&scheduled_to=2026-04-10T11:00:00Z')).toEqual(
      ids([ten, nine]),
    );
    expect(await list('scheduled_from=2026-04-10T12:00:00Z')).toEqual([]);
    expect(await list('scheduled_from=2026-04-10T11:00:00Z&scheduled_to=2026-04-10T11:00:00Z')).toEqual([]);
  });

  it('a scheduled instant without an offset, or not an instant, is a 400 naming the field', async () => {
    const tn = await newTenant(t);
    for (const field of ['scheduled_from', 'scheduled_to']) {
      for (const value of ['2026-04-10T10:00:00', '2026-04-10', 'tomorrow', '2026-02-31T25:00:00Z']) {
        const res = await get(t, tn.live, `/bookings?${field}=${value}`);
        expect(res.status, `${field}=${value}`).toBe(400);
        expect(res.body.code).toBe('invalid_request');
        expect(res.body.errors).toEqual([{ field, message: expect.any(String) }]);
      }
    }
  });

  it('a malformed venue id is a 400, not an empty list', async () => {
    const tn = await newTenant(t);
    for (const venue of ['ven_short', newId('order'), 'nonsense', '']) {
      const res = await get(t, tn.live, `/bookings?venue=${venue}`);
      expect(res.status, venue).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    }
  });

  it('a cursor keeps to its filters: the same filters continue, others are a 400', async () => {
    const tn = await newTenant(t);
    const venue = newId('venue');
    const rows = [];
    for (let i = 0; i < 3; i++) rows.push(await insertBooking(t.storage.db, tn.liveRows, { venue }));
    await insertBooking(t.storage.db, tn.liveRows);
    const first = await get(t, tn.live, `/bookings?venue=${venue}&limit=2`);
    expect(first.body.has_more).toBe(true);
    const cursor = first.body.next_cursor;
    const next = await get(t, tn.live, `/bookings?limit=2&venue=${venue}&starting_after=${cursor}`);
    expect([...ids(first.body.data), ...ids(next.body.data)]).toEqual(ids(newestFirst(rows)));
    for (const q of [
      `limit=2&starting_after=${cursor}`,
      `limit=2&venue=${newId('venue')}&starting_after=${cursor}`,
      `limit=2&venue=${venue}&number=HL-1&starting_after=${cursor}`,
      `limit=2&venue=${venue}&scheduled_from=2020-01-01T00:00:00Z&starting_after=${cursor}`,
    ]) {
      const res = await get(t, tn.live, `/bookings?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    }
  });
});
