import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeChangeLog } from '../../src/jobs/retention.ts';
import { DAY_MS } from '../../src/lib/time.ts';
import type { Queryable } from '../../src/db/schema.ts';
import { toChange } from '../../src/resources/changes/change.model.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, del, patch, post, makeTag, roomy } from '../helpers/writes.ts';

/** Changes by a key, newest first. */
async function changesByKey(db: Queryable, keyId: string) {
  const rows = await db
    .selectFrom('change_log')
    .selectAll()
    .where('key_id', '=', keyId)
    .orderBy('at', 'desc')
    .orderBy('customer_version', 'desc')
    .execute();
  return rows.map(toChange);
}

describe.each(ENGINES)('the change log on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
  });
  afterAll(async () => t?.close());

  it('has one row per change by a key, newest first, with when, key, request, action, object, id and fields', async () => {
    const tag = await makeTag(t);
    const c = await createCustomer(t, t.keys.live, { last_name: 'A' });
    const updated = await patch(t, t.keys.live, c.id, { last_name: 'B' });
    await post(t, t.keys.live, `/customers/${c.id}/tags`, { tag });
    await del(t, t.keys.live, `/customers/${c.id}`);
    const rows = (await changesByKey(t.storage.db, t.keys.live.id)).filter((r) => r.object_id === c.id);
    expect(rows.map((r) => [r.action, r.customer_version])).toEqual([
      ['customer.delete', 4],
      ['customer.tag_add', 3],
      ['customer.update', 2],
      ['customer.create', 1],
    ]);
    const update = rows[2]!;
    expect(update).toMatchObject({
      at: t.clock.now,
      key_id: t.keys.live.id,
      actor_kind: 'key',
      actor_id: t.keys.live.id,
      request_id: updated.headers['request-id'],
      object: 'customer',
      object_id: c.id,
      livemode: 1,
      before: { last_name: 'A' },
      after: { last_name: 'B' },
    });
  });

  it('a refused write leaves no row', async () => {
    const c = await createCustomer(t, t.keys.live, { email: 'log@example.com' });
    const before = (await changesByKey(t.storage.db, t.keys.live.id)).length;
    await patch(t, t.keys.live, c.id, { email: 'other@example.com' }); // 409
    await patch(t, t.keys.live, c.id, { nickname: 'n' }, { 'if-match': '"9"' }); // 412
    await post(t, t.keys.live, '/customers', { first_name: 'X', email: 'log@example.com' }); // 409
    expect((await changesByKey(t.storage.db, t.keys.live.id)).length).toBe(before);
  });

  it('keeps rows 365 days: the daily purge removes only older ones', async () => {
    const start = t.clock.now;
    try {
      const old = await createCustomer(t, t.keys.test);
      t.clock.now = start + 200 * DAY_MS;
      const newer = await createCustomer(t, t.keys.test);
      t.clock.now = start + 365 * DAY_MS;
      expect(await purgeChangeLog(t.storage, t.clock.fn)).toBe(0);
      t.clock.now = start + 366 * DAY_MS;
      expect(await purgeChangeLog(t.storage, t.clock.fn)).toBeGreaterThanOrEqual(1);
      const left = await t.storage.db
        .selectFrom('change_log')
        .select('object_id')
        .where('object_id', 'in', [old.id, newer.id])
        .execute();
      expect(left.map((r) => r.object_id)).toEqual([newer.id]);
      const remaining = await t.storage.db
        .selectFrom('change_log')
        .select('at')
        .where('at', '<', t.clock.now - 365 * DAY_MS)
        .execute();
      expect(remaining).toEqual([]);
    } finally {
      t.clock.now = start;
    }
  });
});
