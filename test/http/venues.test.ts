import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertVenue } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /venues on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/venues',
    collection: 'venues',
    prefix: 'ven',
    mode: 'shared',
    insert: insertVenue,
    otherKindId: newId('event'),
  });

  it('answers every SPEC field, nulls included', async () => {
    const tn = await newTenant(t);
    const bare = await insertVenue(t.storage.db, tn.liveRows, {
      booking_code: null,
      currency: null,
      address: { line1: null, city: null, state: null, postal_code: null, country: null },
      phone: null,
      email: null,
      active: false,
    });
    const full = await insertVenue(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, '/venues');
    expect(res.body.data).toEqual([full, bare]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'id',
        'object',
        'name',
        'slug',
        'booking_code',
        'timezone',
        'currency',
        'address',
        'phone',
        'email',
        'active',
        'created_at',
        'updated_at',
      ].sort(),
    );
  });
});
