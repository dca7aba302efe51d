import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, del, get, makeList, makeTag, post, roomy, staffActor, writesAs } from '../helpers/writes.ts';
import { membershipCountDrift } from '../helpers/membership-counts.ts';

describe.each(ENGINES)('DELETE /test-data on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
  });
  afterAll(async () => t?.close());

  it("removes what test keys made, keeps staff's test rows and all live data, and counts it", async () => {
    const [vip, staffTag] = [await makeTag(t, 'VIP'), await makeTag(t, 'Staff pick')];
    const list = await makeList(t);
    const otherTestKey = await t.makeKey({ name: 'second test key' });
    const a = await createCustomer(t, t.keys.test, { email: 'a@example.com' });
    const b = await createCustomer(t, otherTestKey);
    const staff = writesAs(t.app.writes, await staffActor(t, false));
    const s = (await staff.create({ first_name: 'Staff made' })).record;
    await staff.tag(s.id, staffTag);
    await post(t, t.keys.test, `/customers/${s.id}/tags`, { tag: vip });
    await post(t, otherTestKey, `/customers/${s.id}/lists`, { list });
    await post(t, t.keys.test, `/customers/${a.id}/tags`, { tag: vip });
    const live = await createCustomer(t, t.keys.live, { email: 'a@example.com' });
    await post(t, t.keys.live, `/customers/${live.id}/tags`, { tag: vip });
    const sBefore = (await get(t, t.keys.test, s.id)).json();

    const res = await del(t, t.keys.test, '/test-data');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ object: 'test_data_removal', customers: 2, tags: 2, list_memberships: 1 });

    expect((await get(t, t.keys.test, a.id)).statusCode).toBe(404);
    expect((await get(t, t.keys.test, b.id)).statusCode).toBe(404);
    const sAfter = (await get(t, t.keys.test, s.id)).json();
    expect(sAfter.tags.map((x: { id: string }) => x.id)).toEqual([staffTag]);
    expect(sAfter.lists).toEqual([]);
    expect(Number(sAfter.version)).toBe(Number(sBefore.version) + 2);
    const liveAfter = (await get(t, t.keys.live, live.id)).json();
    expect(liveAfter).toMatchObject({ email: 'a@example.com', version: '2', tags: [{ id: vip }] });

    // Every removal is in the change log under the calling key and request.
    const rows = await t.storage.db
      .selectFrom('change_log')
      .selectAll()
      .where('request_id', '=', res.headers['request-id'] as string)
      .execute();
    expect(rows.map((r) => r.action).sort()).toEqual([
      'customer.delete',
      'customer.delete',
      'customer.list_remove',
      'customer.tag_remove',
      'customer.tag_remove',
    ]);
    expect(new Set(rows.map((r) => r.key_id))).toEqual(new Set([t.keys.test.id]));

    const again = await del(t, t.keys.test, '/test-data');
    expect(again.json()).toEqual({ object: 'test_data_removal', customers: 0, tags: 0, list_memberships: 0 });
  });

  it('a live key gets 403 and nothing is removed; so does a read key', async () => {
    const c = await createCustomer(t, t.keys.test);
    const live = await del(t, t.keys.live, '/test-data');
    expect(live.statusCode).toBe(403);
    expect(live.json().code).toBe('forbidden');
    const testRead = await t.makeKey({ name: 'test read', access: 'read' });
    expect((await del(t, testRead, '/test-data')).statusCode).toBe(403);
    expect((await get(t, t.keys.test, c.id)).statusCode).toBe(200);
  });

  it("leaves every customer's tag and list counts true (migration 007's triggers)", async () => {
    expect(await membershipCountDrift(t.storage.db)).toEqual([]);
  });
});
