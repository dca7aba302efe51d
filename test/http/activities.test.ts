import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertActivity } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /activities on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/activities',
    collection: 'activities',
    prefix: 'act',
    mode: 'shared',
    insert: insertActivity,
    otherKindId: newId('package'),
  });

  it('answers every SPEC field, with peak prices or null', async () => {
    const tn = await newTenant(t);
    const flat = await insertActivity(t.storage.db, tn.liveRows, {
      description: null,
      status: null,
      pricing_model: 'flat_rate',
      prices: { adult: null, junior: null, flat_rate: 12000 },
      peak_prices: null,
      guests: { min_adults: null, max_adults: null, min_juniors: null, max_juniors: null, max_guests: null },
      staff_only: true,
      venues: [],
    });
    const perHead = await insertActivity(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, '/activities');
    expect(res.body.data).toEqual([perHead, flat]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'id',
        'object',
        'name',
        'slug',
        'description',
        'status',
        'pricing_model',
        'prices',
        'peak_prices',
        'guests',
        'staff_only',
        'venues',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(res.body.data[0]).not.toHaveProperty('livemode');
    expect((await get(t, tn.live, `/activities/${flat.id}`)).body).toEqual(flat);
  });

  it('takes no filters beyond the common three', async () => {
    const tn = await newTenant(t);
    const res = await get(t, tn.live, `/activities?venue=${newId('venue')}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_request');
  });
});
