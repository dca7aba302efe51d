import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, del, get, makeList, makeTag, post, roomy } from '../helpers/writes.ts';
import { membershipCountDrift } from '../helpers/membership-counts.ts';

describe.each(ENGINES)('tag and list memberships on %s', (engine) => {
  let t: TestApp;
  let tag: string;
  let list: string;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    tag = await makeTag(t, 'VIP');
    list = await makeList(t, 'Newsletter');
  });
  afterAll(async () => t?.close());

  const tagIt = (id: string, tagId: string, key = t.keys.test) => post(t, key, `/customers/${id}/tags`, { tag: tagId });
  const listIt = (id: string, listId: string, key = t.keys.test) =>
    post(t, key, `/customers/${id}/lists`, { list: listId });

  it('tags a customer (200, the customer with the tag, a new version); tagging again changes nothing', async () => {
    const c = await createCustomer(t, t.keys.test);
    const res = await tagIt(c.id, tag);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: c.id,
      version: '2',
      tags: [{ id: tag, name: 'VIP', added_at: expect.any(String) }],
    });
    expect(res.headers.etag).toBe('"2"');
    const again = await tagIt(c.id, tag);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ version: '2', tags: [{ id: tag }] });
    const row = await t.storage.db
      .selectFrom('customer_tags')
      .selectAll()
      .where('customer_id', '=', c.id)
      .executeTakeFirstOrThrow();
    expect(row.added_by_key_id).toBe(t.keys.test.id);
  });

  it('untags (200, version moves); untagging a tag the customer does not have is no error', async () => {
    const c = await createCustomer(t, t.keys.test);
    await tagIt(c.id, tag);
    const res = await del(t, t.keys.test, `/customers/${c.id}/tags/${tag}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ tags: [], version: '3' });
    const again = await del(t, t.keys.test, `/customers/${c.id}/tags/${tag}`);
    expect(again.statusCode).toBe(200);
    expect(again.json().version).toBe('3');
  });

  it("a tag must exist in the workspace: unknown, malformed or another workspace's tag is a 404", async () => {
    const c = await createCustomer(t, t.keys.test);
    const other = await createWorkspace(t.storage, t.clock.fn, { name: 'Other' });
    const foreign = 'tag_AAAAAAAAAAAAAAAAAAAAAA';
    await t.storage.db
      .insertInto('tags')
      .values({ id: foreign, workspace_id: other.id, name: 'theirs', created_at: 1, updated_at: 1 })
      .execute();
    for (const bad of [foreign, 'tag_BBBBBBBBBBBBBBBBBBBBBB', 'nope', list]) {
      expect((await tagIt(c.id, bad)).statusCode).toBe(404);
      expect((await del(t, t.keys.test, `/customers/${c.id}/tags/${bad}`)).statusCode).toBe(404);
    }
    expect((await tagIt('cus_CCCCCCCCCCCCCCCCCCCCCC', tag)).statusCode).toBe(404);
    expect((await get(t, t.keys.test, c.id)).json().version).toBe('1');
    expect((await post(t, t.keys.test, `/customers/${c.id}/tags`, { tag, extra: 1 })).statusCode).toBe(400);
    expect((await post(t, t.keys.test, `/customers/${c.id}/tags`, {})).statusCode).toBe(400);
  });

  it('adds to a list as active; adding an active member changes nothing; removing makes it absent', async () => {
    const c = await createCustomer(t, t.keys.test);
    const res = await listIt(c.id, list);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      version: '2',
      lists: [{ id: list, name: 'Newsletter', status: 'active', added_at: expect.any(String), unsubscribed_at: null }],
    });
    expect((await listIt(c.id, list)).json().version).toBe('2');
    const removed = await del(t, t.keys.test, `/customers/${c.id}/lists/${list}`);
    expect(removed.json()).toMatchObject({ lists: [], version: '3' });
    expect((await del(t, t.keys.test, `/customers/${c.id}/lists/${list}`)).json().version).toBe('3');
  });

  it('puts back a customer who left the list', async () => {
    const c = await createCustomer(t, t.keys.test);
    await listIt(c.id, list);
    await t.storage.db
      .updateTable('customer_lists')
      .set({ status: 'unsubscribed', unsubscribed_at: t.clock.now })
      .where('customer_id', '=', c.id)
      .execute();
    expect((await get(t, t.keys.test, c.id)).json().lists[0].status).toBe('unsubscribed');
    const back = await listIt(c.id, list);
    expect(back.json().lists).toEqual([expect.objectContaining({ id: list, status: 'active', unsubscribed_at: null })]);
  });

  it('a list must exist in the workspace; membership writes need customers.lists / customers.tags', async () => {
    const c = await createCustomer(t, t.keys.test);
    expect((await listIt(c.id, 'lst_DDDDDDDDDDDDDDDDDDDDDD')).statusCode).toBe(404);
    expect((await listIt(c.id, tag)).statusCode).toBe(404);
    const tagsOnly = await t.makeKey({
      name: 'tags only',
      restricted: { canRead: ['customers'], canWrite: ['customers.tags'] },
    });
    expect((await listIt(c.id, list, tagsOnly)).statusCode).toBe(403);
    expect((await tagIt(c.id, tag, tagsOnly)).statusCode).toBe(200);
    expect((await tagIt(c.id, tag, t.keys.liveRead)).statusCode).toBe(403);
  });

  it('records membership changes in the change log with what they replaced', async () => {
    const c = await createCustomer(t, t.keys.test);
    await tagIt(c.id, tag);
    await listIt(c.id, list);
    await del(t, t.keys.test, `/customers/${c.id}/lists/${list}`);
    const rows = await t.storage.db
      .selectFrom('change_log')
      .selectAll()
      .where('object_id', '=', c.id)
      .orderBy('customer_version')
      .execute();
    expect(rows.map((r) => r.action)).toEqual([
      'customer.create',
      'customer.tag_add',
      'customer.list_add',
      'customer.list_remove',
    ]);
    expect(JSON.parse(rows[1]!.before!)).toEqual({ [`tag:${tag}`]: null });
    expect(JSON.parse(rows[3]!.before!)[`list:${list}`]).toMatchObject({
      status: 'active',
      added_by_key_id: t.keys.test.id,
    });
  });

  it("leaves every customer's tag and list counts true (migration 007's triggers)", async () => {
    expect(await membershipCountDrift(t.storage.db)).toEqual([]);
  });
});
