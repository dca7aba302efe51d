import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertPackage } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /packages on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/packages',
    collection: 'packages',
    prefix: 'pkg',
    mode: 'shared',
    insert: insertPackage,
    otherKindId: newId('activity'),
  });

  it("answers an activity's fields plus base price, duration, deposit and availability", async () => {
    const tn = await newTenant(t);
    const peak = await insertPackage(t.storage.db, tn.liveRows, {
      pricing_model: 'per_head',
      prices: { adult: 4000, junior: 3000, flat_rate: null, base: null },
      peak_prices: { adult: 4500, junior: 3500, flat_rate: null, base: 1000 },
      venues: [newId('venue'), newId('venue')],
      duration_minutes: null,
      deposit: null,
      available_from: null,
      available_until: '2026-12-31',
    });
    const plain = await insertPackage(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, '/packages');
    expect(res.body.data).toEqual([plain, peak]);
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
        'duration_minutes',
        'deposit',
        'available_from',
        'available_until',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(res.body.data[1].peak_prices).toEqual({ adult: 4500, junior: 3500, flat_rate: null, base: 1000 });
    expect(res.body.data[0].deposit).toEqual({ type: 'fixed', value: 10000 });
    expect((await get(t, tn.test, `/packages/${peak.id}`)).body).toEqual(peak);
  });
});
