import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { del, get, makeList, post, roomy, staffActor, writesAs, type Writer } from '../helpers/writes.ts';

/**
 * SPEC "Behaviour rules" 9: DELETE /test-data never touches anything staff made. A test key
 * that puts a customer back on a list they left overwrites the staff's `unsubscribed`
 * membership; removing the test data returns it to what staff left, not to nothing.
 */
describe.each(ENGINES)('DELETE /test-data and staff-made memberships on %s', (engine) => {
  let t: TestApp;
  let staff: Writer;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    staff = writesAs(t.app.writes, await staffActor(t, false));
  });
  afterAll(async () => t?.close());

  const membership = async (customerId: string, listId: string) =>
    t.storage.db
      .selectFrom('customer_lists')
      .select(['status', 'added_at', 'unsubscribed_at', 'added_by_key_id'])
      .where('customer_id', '=', customerId)
      .where('list_id', '=', listId)
      .executeTakeFirst();

  it('puts a staff-made unsubscribed membership back as it was, and removes one the test key made from nothing', async () => {
    const newsletter = await makeList(t, 'Newsletter');
    const offers = await makeList(t, 'Offers');
    const c = (await staff.create({ first_name: 'Staff made' })).record;
    const left = {
      status: 'unsubscribed' as const,
      added_at: t.clock.now - 1_000_000,
      unsubscribed_at: t.clock.now - 100_000,
      added_by_key_id: null,
    };
    await t.storage.db
      .insertInto('customer_lists')
      .values({ workspace_id: t.workspaceId, customer_id: c.id, list_id: newsletter, ...left })
      .execute();

    t.clock.now += 1_000;
    expect((await post(t, t.keys.test, `/customers/${c.id}/lists`, { list: newsletter })).statusCode).toBe(200);
    expect((await post(t, t.keys.test, `/customers/${c.id}/lists`, { list: offers })).statusCode).toBe(200);
    expect(await membership(c.id, newsletter)).toMatchObject({ status: 'active', added_by_key_id: t.keys.test.id });

    const res = await del(t, t.keys.test, '/test-data');
    expect(res.json()).toEqual({ object: 'test_data_removal', customers: 0, tags: 0, list_memberships: 2 });
    expect(await membership(c.id, newsletter)).toEqual(left);
    expect(await membership(c.id, offers)).toBeUndefined();
    const lists = (await get(t, t.keys.test, c.id)).json().lists;
    expect(lists).toEqual([expect.objectContaining({ id: newsletter, status: 'unsubscribed' })]);

    // Recorded as the removal of the test key's membership, with what it went back to.
    const logged = await t.storage.db
      .selectFrom('change_log')
      .select(['action', 'after'])
      .where('request_id', '=', res.headers['request-id'] as string)
      .where('object_id', '=', c.id)
      .execute();
    const entries = logged.map((l) => [l.action, JSON.parse(l.after!)]);
    expect(entries).toHaveLength(2);
    expect(entries).toEqual(
      expect.arrayContaining([
        ['customer.list_remove', { [`list:${newsletter}`]: left }],
        ['customer.list_remove', { [`list:${offers}`]: null }],
      ]),
    );
    expect((await del(t, t.keys.test, '/test-data')).json()).toMatchObject({ list_memberships: 0 });
    expect(await membership(c.id, newsletter)).toEqual(left);
  });
});
