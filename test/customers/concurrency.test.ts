import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, get, makeTag, patch, post, roomy, roomyKey } from '../helpers/writes.ts';

/** Concurrent writes to one customer: none lost, one version per change, one log row each. */
describe.each(ENGINES)('concurrent writes on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
  });
  afterAll(async () => t?.close());

  it('ten PATCHes at once all land, each with its own version and change-log row', async () => {
    const key = await roomyKey(t);
    const c = await createCustomer(t, key);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => patch(t, key, c.id, { nickname: `n${i}` })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.json().version)).size).toBe(10);
    const log = await t.storage.db
      .selectFrom('change_log')
      .select('customer_version')
      .where('object_id', '=', c.id)
      .orderBy('customer_version')
      .execute();
    expect(log.map((r) => r.customer_version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect((await get(t, key, c.id)).json().version).toBe('11');
  });

  it('tagging at once from several requests adds the tag once', async () => {
    const key = await roomyKey(t);
    const c = await createCustomer(t, key);
    const tag = await makeTag(t);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post(t, key, `/customers/${c.id}/tags`, { tag })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(200));
    expect((await get(t, key, c.id)).json()).toMatchObject({ version: '2', tags: [{ id: tag }] });
  });

  it('creates racing for one email: exactly one wins, the rest are 409', async () => {
    const key = await roomyKey(t);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(t, key, '/customers', { first_name: `E${i}`, email: 'race@example.com' }),
      ),
    );
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 409)).toHaveLength(5);
  });
});
