import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { countRows, createCustomer, makeList, makeTag, roomy } from '../helpers/writes.ts';

/**
 * If-Match is evaluated on every customer write, as RFC 9110 says, not only
 * on PATCH: a stale version is a 412 precondition_failed and nothing changes; the current
 * version (or *) lets the write through; a malformed one is a 400.
 */
describe.each(ENGINES)('If-Match on customer writes on %s', (engine) => {
  let t: TestApp;
  let tag: string;
  let list: string;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    tag = await makeTag(t, 'Gold');
    list = await makeList(t, 'Letters');
  });
  afterAll(async () => t?.close());

  const write = (method: 'POST' | 'DELETE', url: string, ifMatch: string, payload?: object) =>
    t.call(t.keys.test, {
      method,
      url,
      ...(payload ? { payload } : {}),
      headers: { 'if-match': ifMatch, ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}) },
    });

  async function state(id: string) {
    const res = await t.call(t.keys.test, { method: 'GET', url: `/customers/${id}` });
    return { status: res.statusCode, body: res.statusCode === 200 ? res.json() : null };
  }

  function expectStale(res: { statusCode: number; json(): unknown }) {
    expect(res.statusCode).toBe(412);
    expect(res.json()).toMatchObject({ code: 'precondition_failed' });
  }

  it('a stale If-Match on DELETE /customers/{id} is a 412 and the customer stays', async () => {
    const c = await createCustomer(t, t.keys.test);
    const changes = await countRows(t, 'change_log');
    expectStale(await write('DELETE', `/customers/${c.id}`, '"7"'));
    expectStale(await write('DELETE', `/customers/${c.id}`, 'W/"1"')); // weak never matches
    expect((await state(c.id)).status).toBe(200);
    expect(await countRows(t, 'change_log')).toBe(changes);
    expect((await write('DELETE', `/customers/${c.id}`, 'not-a-tag')).statusCode).toBe(400);
    expect((await write('DELETE', `/customers/${c.id}`, `"2", "${c.version}"`)).statusCode).toBe(200);
    expect((await state(c.id)).status).toBe(404);
  });

  it('a stale If-Match on tag and list writes is a 412 and the memberships stay as they were', async () => {
    const c = await createCustomer(t, t.keys.test);
    const stale = '"99"';
    expectStale(await write('POST', `/customers/${c.id}/tags`, stale, { tag }));
    expectStale(await write('POST', `/customers/${c.id}/lists`, stale, { list }));
    let now = await state(c.id);
    expect(now.body).toMatchObject({ version: c.version, tags: [], lists: [] });

    const tagged = await write('POST', `/customers/${c.id}/tags`, `"${c.version}"`, { tag });
    expect(tagged.statusCode).toBe(200);
    const listed = await write('POST', `/customers/${c.id}/lists`, '*', { list });
    expect(listed.statusCode).toBe(200);
    now = await state(c.id);
    const version = now.body.version as string;

    // The version before the last write is stale now, even for a removal.
    expectStale(await write('DELETE', `/customers/${c.id}/tags/${tag}`, `"${c.version}"`));
    expectStale(await write('DELETE', `/customers/${c.id}/lists/${list}`, `"${Number(version) - 1}"`));
    expect((await state(c.id)).body).toEqual(now.body);

    const untagged = await write('DELETE', `/customers/${c.id}/tags/${tag}`, `"${version}"`);
    expect(untagged.statusCode).toBe(200);
    expect(untagged.json().tags).toEqual([]);
    // A stale If-Match is a 412 even where the write would change nothing.
    expectStale(await write('DELETE', `/customers/${c.id}/tags/${tag}`, `"${version}"`));
  });

  it('without If-Match the writes go through as before', async () => {
    const c = await createCustomer(t, t.keys.test);
    const tagged = await t.call(t.keys.test, {
      method: 'POST',
      url: `/customers/${c.id}/tags`,
      payload: { tag },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(tagged.statusCode).toBe(200);
    expect((await t.call(t.keys.test, { method: 'DELETE', url: `/customers/${c.id}` })).statusCode).toBe(200);
  });
});
