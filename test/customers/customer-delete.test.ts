import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertBooking, insertOrder, insertTicket } from '../helpers/fixtures.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, del, get, roomy } from '../helpers/writes.ts';

describe.each(ENGINES)('DELETE /customers/{id} on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
  });
  afterAll(async () => t?.close());

  it('answers the deleted customer; then the customer is gone from reads and writes', async () => {
    const c = await createCustomer(t, t.keys.test, { email: 'gone@example.com' });
    const res = await del(t, t.keys.test, `/customers/${c.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: c.id, object: 'customer', deleted: true });
    expect((await get(t, t.keys.test, c.id)).statusCode).toBe(404);
    const list = await t.call(t.keys.test, { method: 'GET', url: '/customers?email=gone@example.com' });
    expect(list.json().data).toEqual([]);
    expect((await del(t, t.keys.test, `/customers/${c.id}`)).statusCode).toBe(404);
    const log = await t.storage.db
      .selectFrom('change_log')
      .selectAll()
      .where('object_id', '=', c.id)
      .orderBy('customer_version')
      .execute();
    expect(log.map((r) => [r.action, r.customer_version])).toEqual([
      ['customer.create', 1],
      ['customer.delete', 2],
    ]);
  });

  it("keeps the customer's bookings, orders and tickets, which still name its id", async () => {
    const c = await createCustomer(t, t.keys.live);
    const where = { workspaceId: t.workspaceId, livemode: true };
    const order = await insertOrder(t.storage.db, where, { customer: c.id });
    const booking = await insertBooking(t.storage.db, where, {
      people: [{ customer: c.id, primary: true, adult: true, role: null, checked_in_at: null }],
    });
    const ticket = await insertTicket(t.storage.db, { workspaceId: t.workspaceId }, { customer: c.id });
    expect((await del(t, t.keys.live, `/customers/${c.id}`)).statusCode).toBe(200);
    expect((await t.call(t.keys.live, { method: 'GET', url: `/orders/${order.id}` })).json().customer).toBe(c.id);
    expect(
      (await t.call(t.keys.live, { method: 'GET', url: `/bookings/${booking.id}` })).json().people[0].customer,
    ).toBe(c.id);
    expect((await t.call(t.keys.live, { method: 'GET', url: `/tickets/${ticket.id}` })).json().customer).toBe(c.id);
    const orders = await t.call(t.keys.live, { method: 'GET', url: `/orders?customer=${c.id}` });
    expect(orders.json().data.map((o: { id: string }) => o.id)).toEqual([order.id]);
  });

  it('refuses read keys (403), keys without customers.delete (403), ids it cannot see (404)', async () => {
    const c = await createCustomer(t, t.keys.live);
    expect((await del(t, t.keys.liveRead, `/customers/${c.id}`)).statusCode).toBe(403);
    const noDelete = await t.makeKey({
      name: 'no delete',
      mode: 'live',
      restricted: { canRead: ['customers'], canWrite: ['customers.create', 'customers.update'] },
    });
    expect((await del(t, noDelete, `/customers/${c.id}`)).statusCode).toBe(403);
    expect((await del(t, t.keys.test, `/customers/${c.id}`)).statusCode).toBe(404); // other mode
    expect((await del(t, t.keys.live, `/customers/${c.id.replace('cus_', 'ord_')}`)).statusCode).toBe(404);
    expect((await get(t, t.keys.live, c.id)).statusCode).toBe(200);
  });

  it('takes no body and no query parameters', async () => {
    const c = await createCustomer(t, t.keys.test);
    expect((await del(t, t.keys.test, `/customers/${c.id}?force=true`)).statusCode).toBe(400);
    expect((await get(t, t.keys.test, c.id)).statusCode).toBe(200);
  });
});
