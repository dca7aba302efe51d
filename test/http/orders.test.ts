import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertOrder } from '../helpers/fixtures.ts';
import { describeReadContract } from '../helpers/read-contract.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get, ids, newTenant } from '../helpers/tenant.ts';

describe.each(ENGINES)('GET /orders on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  describeReadContract(() => t, {
    path: '/orders',
    collection: 'orders',
    prefix: 'ord',
    mode: 'mode',
    insert: insertOrder,
    otherKindId: newId('booking'),
  });

  it('answers every SPEC field: money, lines, payments and refunds', async () => {
    const tn = await newTenant(t);
    const bare = await insertOrder(t.storage.db, tn.liveRows, {
      reference: null,
      type: null,
      status: null,
      venue: null,
      customer: null,
      booking: null,
      event: newId('event'),
      billing_details: { name: null, email: null, phone: null },
      discount_code: null,
      due_date: '2026-05-01T00:00:00.000Z',
      lines: [],
      payments: [],
      refunds: [],
    });
    const full = await insertOrder(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, '/orders');
    expect(res.body.data).toEqual([full, bare]);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(
      [
        'id',
        'object',
        'number',
        'reference',
        'type',
        'status',
        'venue',
        'customer',
        'booking',
        'event',
        'billing_details',
        'currency',
        'subtotal',
        'discount',
        'gift_card',
        'store_credit',
        'total',
        'amount_refunded',
        'amount_due',
        'amount_paid',
        'discount_code',
        'due_date',
        'lines',
        'payments',
        'refunds',
        'livemode',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(res.body.data[0].payments[0].card).toEqual({ brand: 'visa', last4: '4242' });
    expect(res.body.data[0].lines[1].adjusts).toBe('line_1');
    expect((await get(t, tn.live, `/orders/${bare.id}`)).body).toEqual(bare);
  });

  it('filters by customer, booking, venue and number, alone and together', async () => {
    const tn = await newTenant(t);
    const [cusA, cusB, bkgA, venA] = [newId('customer'), newId('customer'), newId('booking'), newId('venue')];
    const o1 = await insertOrder(t.storage.db, tn.liveRows, {
      customer: cusA,
      booking: bkgA,
      venue: venA,
      number: 'ORD-1',
    });
    const o2 = await insertOrder(t.storage.db, tn.liveRows, {
      customer: cusA,
      booking: null,
      venue: venA,
      number: 'ORD-2',
    });
    const o3 = await insertOrder(t.storage.db, tn.liveRows, {
      customer: cusB,
      booking: bkgA,
      venue: null,
      number: 'ORD-3',
    });
    await insertOrder(t.storage.db, tn.testRows, { customer: cusA, booking: bkgA, venue: venA, number: 'ORD-1' });

    const list = async (q: string) => ids((await get(t, tn.live, `/orders?${q}`)).body.data);
    expect(await list(`customer=${cusA}`)).toEqual(ids([o2, o1]));
    expect(await list(`customer=${cusB}`)).toEqual([o3.id]);
    expect(await list(`customer=${newId('customer')}`)).toEqual([]);
    expect(await list(`booking=${bkgA}`)).toEqual(ids([o3, o1]));
    expect(await list(`booking=${newId('booking')}`)).toEqual([]);
    expect(await list(`venue=${venA}`)).toEqual(ids([o2, o1]));
    expect(await list(`venue=${newId('venue')}`)).toEqual([]);
    expect(await list('number=ORD-3')).toEqual([o3.id]);
    expect(await list('number=ORD-9')).toEqual([]);
    expect(await list(`customer=${cusA}&booking=${bkgA}`)).toEqual([o1.id]);
    expect(await list(`customer=${cusB}&venue=${venA}`)).toEqual([]);
  });

  it('a malformed or wrongly prefixed filter id is a 400', async () => {
    const tn = await newTenant(t);
    for (const q of [
      'customer=cus_x',
      `customer=${newId('order')}`,
      `booking=${newId('customer')}`,
      'venue=ven_!',
      'number=',
    ]) {
      const res = await get(t, tn.live, `/orders?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    }
  });

  it('a cursor made with one customer filter is refused with another', async () => {
    const tn = await newTenant(t);
    const customer = newId('customer');
    for (let i = 0; i < 3; i++) await insertOrder(t.storage.db, tn.liveRows, { customer });
    const first = await get(t, tn.live, `/orders?customer=${customer}&limit=1`);
    const same = await get(t, tn.live, `/orders?customer=${customer}&limit=1&starting_after=${first.body.next_cursor}`);
    expect(same.status).toBe(200);
    const other = await get(
      t,
      tn.live,
      `/orders?customer=${newId('customer')}&limit=1&starting_after=${first.body.next_cursor}`,
    );
    expect(other.status).toBe(400);
  });

  it('a contacts-masked key sees billing email and phone masked, on lists and on one order', async () => {
    const tn = await newTenant(t);
    const masked = await t.makeKey({ workspaceId: tn.workspaceId, mode: 'live', access: 'read', contactsMasked: true });
    const order = await insertOrder(t.storage.db, tn.liveRows, {
      billing_details: { name: 'Ada Lovelace', email: 'ada.lovelace@example.com', phone: '+61412345678' },
    });
    const empty = await insertOrder(t.storage.db, tn.liveRows, {
      billing_details: { name: 'Walk-in', email: null, phone: null },
    });
    const shown = { name: 'Ada Lovelace', email: 'a***@example.com', phone: '+*********78' };

    const list = await get(t, masked, '/orders');
    expect(list.body.data).toEqual([{ ...empty }, { ...order, billing_details: shown }]);
    const one = await get(t, masked, `/orders/${order.id}`);
    expect(one.body).toEqual({ ...order, billing_details: shown });
    expect(one.body.billing_details.email).not.toContain('lovelace');
    // An unmasked key of the same workspace still sees them whole.
    expect((await get(t, tn.live, `/orders/${order.id}`)).body.billing_details).toEqual(order.billing_details);
  });
});
