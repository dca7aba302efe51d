import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertCustomer, insertList, insertTag } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, ids, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /customers on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/customers',
    collection: 'customers',
    prefix: 'cus',
    mode: 'mode',
    insert: insertCustomer,
    otherKindId: newId('tag'),
  });

  it('embeds tag and list memberships with their names, oldest first, unknown times first', async () => {
    const tn = await newTenant(t);
    const vip = await insertTag(t.storage.db, tn.liveRows, { name: 'VIP' });
    const league = await insertTag(t.storage.db, tn.liveRows, { name: 'League bowler' });
    const legacy = await insertTag(t.storage.db, tn.liveRows, { name: 'Imported' });
    const news = await insertList(t.storage.db, tn.liveRows, { name: 'Newsletter' });
    const offers = await insertList(t.storage.db, tn.liveRows, { name: 'Offers' });
    const customer = await insertCustomer(t.storage.db, tn.liveRows, {
      tags: [
        { id: legacy.id, name: 'Imported', added_at: null },
        { id: vip.id, name: 'VIP', added_at: '2026-01-01T00:00:00.000Z' },
        { id: league.id, name: 'League bowler', added_at: '2026-02-01T00:00:00.000Z' },
      ],
      lists: [
        { id: offers.id, name: 'Offers', status: 'active', added_at: null, unsubscribed_at: null },
        {
          id: news.id,
          name: 'Newsletter',
          status: 'unsubscribed',
          added_at: '2026-01-10T00:00:00.000Z',
          unsubscribed_at: '2026-03-01T00:00:00.000Z',
        },
      ],
    });
    const plain = await insertCustomer(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, '/customers');
    expect(res.body.data).toEqual([plain, customer]);
    expect(res.body.data[0].tags).toEqual([]);
    expect((await get(t, tn.live, `/customers/${customer.id}`)).body).toEqual(customer);
    // Renaming a tag shows at once: names are read, not copied.
    await t.storage.db.updateTable('tags').set({ name: 'Very important' }).where('id', '=', vip.id).execute();
    const renamed = await get(t, tn.live, `/customers/${customer.id}`);
    expect(renamed.body.tags[1]).toEqual({ id: vip.id, name: 'Very important', added_at: '2026-01-01T00:00:00.000Z' });
  });

  it('answers every SPEC field, nulls included', async () => {
    const tn = await newTenant(t);
    const sparse = await insertCustomer(t.storage.db, tn.liveRows, {
      last_name: null,
      email: null,
      phone: null,
      company: null,
      address: { line1: null, line2: null, suburb: null, state: null, postcode: null, country: null },
      adult: null,
      membership: { member: false, tier: null },
      version: '7',
    });
    const res = await get(t, tn.live, `/customers/${sparse.id}`);
    expect(res.body).toEqual(sparse);
    expect(res.headers.etag).toBe('"7"');
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'id',
        'object',
        'first_name',
        'last_name',
        'nickname',
        'email',
        'phone',
        'date_of_birth',
        'company',
        'address',
        'adult',
        'marketing_consent',
        'membership',
        'tags',
        'lists',
        'livemode',
        'created_at',
        'updated_at',
        'version',
      ].sort(),
    );
  });

  it('email finds the exact address in any case, and nothing else', async () => {
    const tn = await newTenant(t);
    const ada = await insertCustomer(t.storage.db, tn.liveRows, { email: 'ada@example.com' });
    await insertCustomer(t.storage.db, tn.liveRows, { email: 'ada@example.com.au' });
    await insertCustomer(t.storage.db, tn.liveRows, { email: 'bada@example.com' });
    await insertCustomer(t.storage.db, tn.testRows, { email: 'ada@example.com' });
    for (const q of ['ada@example.com', 'ADA@Example.COM', '%20Ada@example.com%20']) {
      const res = await get(t, tn.live, `/customers?email=${q}`);
      expect(res.status, q).toBe(200);
      expect(res.body.data, q).toEqual([ada]);
    }
    for (const q of ['ada@example', 'da@example.com', 'ada%25', '']) {
      expect((await get(t, tn.live, `/customers?email=${q}`)).body.data, q).toEqual([]);
    }
  });

  it('a cursor made with one email is refused with another or none', async () => {
    const tn = await newTenant(t);
    for (let i = 0; i < 2; i++) await insertCustomer(t.storage.db, tn.liveRows);
    const first = await get(t, tn.live, '/customers?limit=1');
    expect(first.body.has_more).toBe(true);
    const withEmail = await get(
      t,
      tn.live,
      `/customers?limit=1&email=x@example.com&starting_after=${first.body.next_cursor}`,
    );
    expect(withEmail.status).toBe(400);
    expect(withEmail.body.code).toBe('invalid_request');
  });

  it('a contacts-masked key sees email and phone masked, and email look-ups still work', async () => {
    const tn = await newTenant(t);
    const masked = await t.makeKey({ workspaceId: tn.workspaceId, mode: 'live', access: 'read', contactsMasked: true });
    const ada = await insertCustomer(t.storage.db, tn.liveRows, {
      email: 'ada.lovelace@example.com',
      phone: '+61412345678',
    });
    const none = await insertCustomer(t.storage.db, tn.liveRows, { email: null, phone: null });
    const shown = { ...ada, email: 'a***@example.com', phone: '+*********78' };
    expect((await get(t, masked, '/customers')).body.data).toEqual([none, shown]);
    expect((await get(t, masked, `/customers/${ada.id}`)).body).toEqual(shown);
    const found = await get(t, masked, '/customers?email=Ada.Lovelace@example.com');
    expect(found.body.data).toEqual([shown]);
    expect(found.body.data[0].email).not.toContain('lovelace');
    expect((await get(t, tn.live, `/customers/${ada.id}`)).body.email).toBe('ada.lovelace@example.com');
  });

  it('adult is computed from date_of_birth on the service clock, else the stored value', async () => {
    const tn = await newTenant(t);
    const realNow = t.clock.now;
    t.clock.now = Date.parse('2026-06-15T12:00:00.000Z');
    try {
      const cases = [
        { date_of_birth: '2008-06-15', adult: false, expected: true }, // 18 today
        { date_of_birth: '2008-06-16', adult: true, expected: false }, // 18 tomorrow
        { date_of_birth: '1990-02-28', adult: false, expected: true },
        { date_of_birth: '2015-01-01', adult: null, expected: false },
        { date_of_birth: null, adult: false, expected: false },
        { date_of_birth: null, adult: true, expected: true },
        { date_of_birth: null, adult: null, expected: null },
      ];
      for (const { expected, ...fields } of cases) {
        const customer = await insertCustomer(t.storage.db, tn.liveRows, fields);
        const one = await get(t, tn.live, `/customers/${customer.id}`);
        expect(one.body.adult, JSON.stringify(fields)).toBe(expected);
        const listed = await get(t, tn.live, `/customers?email=${customer.email}`);
        expect(listed.body.data[0].adult, JSON.stringify(fields)).toBe(expected);
      }
    } finally {
      t.clock.now = realNow;
    }
  });

  it('a deleted customer is invisible to lists, look-ups and retrieves', async () => {
    const tn = await newTenant(t);
    const gone = await insertCustomer(t.storage.db, tn.liveRows, {
      email: 'gone@example.com',
      deleted_at: '2026-04-01T00:00:00.000Z',
    });
    const kept = await insertCustomer(t.storage.db, tn.liveRows);
    expect(ids((await get(t, tn.live, '/customers')).body.data)).toEqual([kept.id]);
    expect((await get(t, tn.live, '/customers?email=gone@example.com')).body.data).toEqual([]);
    const one = await get(t, tn.live, `/customers/${gone.id}`);
    expect(one.status).toBe(404);
    expect(one.body.code).toBe('not_found');
    // Their email may belong to a new customer, who is the one found.
    const again = await insertCustomer(t.storage.db, tn.liveRows, { email: 'gone@example.com' });
    expect((await get(t, tn.live, '/customers?email=gone@example.com')).body.data).toEqual([again]);
  });

  it('test and live customers may share an email and each key finds its own', async () => {
    const tn = await newTenant(t);
    const liveOne = await insertCustomer(t.storage.db, tn.liveRows, { email: 'same@example.com' });
    const testOne = await insertCustomer(t.storage.db, tn.testRows, { email: 'same@example.com' });
    expect((await get(t, tn.live, '/customers?email=same@example.com')).body.data).toEqual([liveOne]);
    expect((await get(t, tn.test, '/customers?email=same@example.com')).body.data).toEqual([testOne]);
  });
});
