import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertEvent } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /events on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/events',
    collection: 'events',
    prefix: 'evt',
    mode: 'shared',
    insert: insertEvent,
    otherKindId: newId('event_date'),
  });

  it('answers every SPEC field with its dates (evd_ ids)', async () => {
    const tn = await newTenant(t);
    const undated = await insertEvent(t.storage.db, tn.liveRows, {
      description: null,
      status: null,
      venue: null,
      price_per_ticket: null,
      max_tickets: null,
      min_tickets: null,
      min_age: null,
      duration_minutes: null,
      date_mode: null,
      timezone: null,
      staff_only: true,
      dates: [],
    });
    const dated = await insertEvent(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, '/events');
    expect(res.body.data).toEqual([dated, undated]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'id',
        'object',
        'name',
        'slug',
        'description',
        'status',
        'venue',
        'price_per_ticket',
        'max_tickets',
        'min_tickets',
        'min_age',
        'duration_minutes',
        'date_mode',
        'timezone',
        'staff_only',
        'dates',
        'created_at',
        'updated_at',
      ].sort(),
    );
    const [first] = res.body.data[0].dates;
    expect(first.id).toMatch(/^evd_[0-9A-Za-z]{22}$/);
    expect(Object.keys(first).sort()).toEqual(
      [
        'id',
        'label',
        'scheduled_at',
        'local_date',
        'local_time',
        'duration_minutes',
        'max_tickets',
        'price_per_ticket',
        'status',
      ].sort(),
    );
    expect((await get(t, tn.live, `/events/${dated.id}`)).body).toEqual(dated);
  });

  it("an event date's id is not an event's", async () => {
    const tn = await newTenant(t);
    const event = await insertEvent(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, `/events/${event.dates[0]!.id}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});
