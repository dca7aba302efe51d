import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertGiftCard } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, ids, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /gift-cards on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/gift-cards',
    collection: 'gift-cards',
    prefix: 'gft',
    mode: 'live-only',
    insert: insertGiftCard,
    otherKindId: newId('order'),
  });

  it('answers every SPEC field with its movements, never a whole code', async () => {
    const tn = await newTenant(t);
    const blank = await insertGiftCard(t.storage.db, tn.liveRows, {
      code_last4: null,
      balance: 0,
      expires_at: null,
      active: false,
      holder: null,
      buyer: null,
      recipient_name: null,
      delivered_at: null,
      movements: [],
    });
    const card = await insertGiftCard(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, '/gift-cards');
    expect(res.body.data).toEqual([card, blank]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'id',
        'object',
        'code_last4',
        'balance',
        'expires_at',
        'active',
        'holder',
        'buyer',
        'recipient_name',
        'delivered_at',
        'movements',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(res.body.data[0].object).toBe('gift_card');
    expect(Object.keys(res.body.data[0].movements[0]).sort()).toEqual(
      ['type', 'amount', 'balance_after', 'order', 'booking', 'created_at'].sort(),
    );
    expect((await get(t, tn.live, `/gift-cards/${blank.id}`)).body).toEqual(blank);
  });

  it('customer matches the cards a customer holds or bought, each card once', async () => {
    const tn = await newTenant(t);
    const [a, b] = [newId('customer'), newId('customer')];
    const both = await insertGiftCard(t.storage.db, tn.liveRows, { holder: a, buyer: a });
    const held = await insertGiftCard(t.storage.db, tn.liveRows, { holder: a, buyer: b });
    const bought = await insertGiftCard(t.storage.db, tn.liveRows, { holder: b, buyer: a });
    const other = await insertGiftCard(t.storage.db, tn.liveRows, { holder: b, buyer: null });
    await insertGiftCard(t.storage.db, tn.liveRows, { holder: null, buyer: null });

    const list = async (q: string) => ids((await get(t, tn.live, `/gift-cards?${q}`)).body.data);
    expect(await list(`customer=${a}`)).toEqual(ids([bought, held, both]));
    expect(await list(`customer=${b}`)).toEqual(ids([other, bought, held]));
    expect(await list(`customer=${newId('customer')}`)).toEqual([]);
    // Paged by two, the OR filter still yields each card once.
    const first = await get(t, tn.live, `/gift-cards?customer=${a}&limit=2`);
    const rest = await get(t, tn.live, `/gift-cards?customer=${a}&limit=2&starting_after=${first.body.next_cursor}`);
    expect([...ids(first.body.data), ...ids(rest.body.data)]).toEqual(ids([bought, held, both]));
    expect((await get(t, tn.live, `/gift-cards?customer=${b}&starting_after=${first.body.next_cursor}`)).status).toBe(
      400,
    );
  });

  it('a malformed customer id is a 400', async () => {
    const tn = await newTenant(t);
    for (const q of ['customer=cus_', `customer=${newId('gift_card')}`, 'holder=x']) {
      const res = await get(t, tn.live, `/gift-cards?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    }
  });
});
