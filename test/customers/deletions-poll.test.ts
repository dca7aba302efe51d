import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, del, patch, roomy, roomyKey } from '../helpers/writes.ts';

type Item = {
  id: string;
  object: string;
  deleted?: true;
  deleted_at?: string;
  first_name?: string;
  livemode?: boolean;
};

/** GET /customers?updated_since=…&include_deleted=true (DECISIONS "Webhooks", "Deletions for pollers"). */
describe.each(ENGINES)('deletions for pollers on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine, { clock: Date.UTC(2026, 9, 1, 9) });
    await roomy(t);
  });
  afterAll(async () => t?.close());

  const tick = () => {
    t.clock.now += 1_000;
  };
  const instant = (ms: number) => new Date(ms).toISOString();

  /** Every page of a sync from `since`, walked with the cursor. */
  async function sync(key: TestKey, since: number, extra = '&include_deleted=true', limit = 100): Promise<Item[]> {
    const items: Item[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const after = cursor ? `&starting_after=${encodeURIComponent(cursor)}` : '';
      const res = await t.call(key, {
        method: 'GET',
        url: `/customers?updated_since=${encodeURIComponent(instant(since))}${extra}&limit=${limit}${after}`,
      });
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as { data: Item[]; has_more: boolean; next_cursor?: string };
      items.push(...page.data);
      if (!page.has_more) return items;
      cursor = page.next_cursor;
    }
    throw new Error('the walk did not end');
  }

  it('an incremental sync sees a create, an update and a delete, for a test and a live key, never the other mode', async () => {
    for (const [key, other] of [
      [t.keys.test, t.keys.live],
      [t.keys.live, t.keys.test],
    ] as const) {
      const goneBefore = await createCustomer(t, key, { first_name: 'Old' });
      tick();
      expect((await del(t, key, `/customers/${goneBefore.id}`)).statusCode).toBe(200);
      tick();
      const since = t.clock.now;
      const kept = await createCustomer(t, key, { first_name: 'Kept' });
      tick();
      const changed = await createCustomer(t, key, { first_name: 'Changed' });
      tick();
      expect((await patch(t, key, changed.id, { first_name: 'Changed again' })).statusCode).toBe(200);
      tick();
      const gone = await createCustomer(t, key, { first_name: 'Gone' });
      tick();
      const deletedAt = t.clock.now;
      expect((await del(t, key, `/customers/${gone.id}`)).statusCode).toBe(200);
      // The other mode's changes in the same window.
      const elsewhere = await createCustomer(t, other, { first_name: 'Elsewhere' });
      tick();
      await del(t, other, `/customers/${elsewhere.id}`);
      tick();

      const items = await sync(key, since);
      expect(items).toEqual([
        { id: gone.id, object: 'customer', deleted: true, deleted_at: instant(deletedAt) },
        expect.objectContaining({ id: changed.id, first_name: 'Changed again', livemode: key === t.keys.live }),
        expect.objectContaining({ id: kept.id, first_name: 'Kept', livemode: key === t.keys.live }),
      ]);
      // Without include_deleted the deletion is simply absent, as before.
      expect((await sync(key, since, '')).map((c) => c.id)).toEqual([changed.id, kept.id]);
    }
  });

  it('one cursor walks customers and deletions in list order, a page at a time', async () => {
    const key = await roomyKey(t, { mode: 'live' });
    tick();
    const since = t.clock.now;
    const made: { id: string; deleted: boolean }[] = [];
    for (let i = 0; i < 13; i++) {
      made.push({ id: (await createCustomer(t, key, { first_name: `Walk ${i}` })).id, deleted: false });
      tick();
    }
    for (const i of [0, 3, 4, 5, 9, 12]) {
      await del(t, key, `/customers/${made[i]!.id}`);
      made[i]!.deleted = true;
      tick();
    }
    const expected = made.reverse().map((m) => [m.id, m.deleted]);
    for (const limit of [1, 2, 5, 100]) {
      const items = await sync(key, since, '&include_deleted=true', limit);
      expect(items.map((c) => [c.id, c.deleted === true])).toEqual(expected);
    }
  });

  it('an undo of a create and DELETE /test-data are deletions too, as the API delete is', async () => {
    const key = await roomyKey(t, { mode: 'test' });
    tick();
    const since = t.clock.now;
    const undone = await createCustomer(t, key, { first_name: 'Undone' });
    tick();
    const report = await undoKeyChanges(t.storage, key.id, {
      by: { kind: 'operator', id: 'cli:test' },
      clock: t.clock.fn,
    });
    expect(report.reverted).toBe(1);
    tick();
    const testData = await createCustomer(t, t.keys.test, { first_name: 'Test data' });
    tick();
    const removed = await t.call(t.keys.test, { method: 'DELETE', url: '/test-data' });
    expect(removed.statusCode, removed.body).toBe(200);
    const deletions = (await sync(t.keys.test, since)).filter((c) => c.deleted);
    expect(deletions.map((c) => c.id)).toEqual(expect.arrayContaining([undone.id, testData.id]));
  });

  it('a customer deleted and made again with the same email is a new id: the sync sees both', async () => {
    tick();
    const since = t.clock.now;
    const first = await createCustomer(t, t.keys.live, { email: 'again@example.com' });
    tick();
    await del(t, t.keys.live, `/customers/${first.id}`);
    tick();
    const second = await createCustomer(t, t.keys.live, { email: 'again@example.com' });
    expect(second.id).not.toBe(first.id);
    const items = await sync(t.keys.live, since);
    expect(items.filter((c) => c.id === first.id || c.id === second.id)).toEqual([
      expect.objectContaining({ id: second.id, email: 'again@example.com' }),
      { id: first.id, object: 'customer', deleted: true, deleted_at: expect.any(String) },
    ]);
  });

  it('deletions are listed as long as the change log keeps them: 365 days', async () => {
    tick();
    const since = t.clock.now;
    const c = await createCustomer(t, t.keys.live);
    tick();
    await del(t, t.keys.live, `/customers/${c.id}`);
    t.clock.now += 364 * 86_400_000;
    expect((await sync(t.keys.live, since)).some((x) => x.id === c.id)).toBe(true);
    t.clock.now += 2 * 86_400_000;
    expect((await sync(t.keys.live, since)).some((x) => x.id === c.id)).toBe(false);
  });

  it('include_deleted needs updated_since, and a cursor is bound to it', async () => {
    const alone = await t.call(t.keys.live, { method: 'GET', url: '/customers?include_deleted=true' });
    expect(alone.statusCode).toBe(400);
    expect(alone.json()).toMatchObject({
      code: 'invalid_request',
      errors: [{ field: 'include_deleted', message: 'needs updated_since' }],
    });
    for (const junk of ['yes', '1', '']) {
      const res = await t.call(t.keys.live, {
        method: 'GET',
        url: `/customers?updated_since=2026-01-01T00:00:00Z&include_deleted=${junk}`,
      });
      expect({ junk, status: res.statusCode }).toEqual({ junk, status: 400 });
    }
    const off = await t.call(t.keys.live, { method: 'GET', url: '/customers?include_deleted=false' });
    expect(off.statusCode).toBe(200);
    // A cursor of a list with deletions is not a cursor of the list without them, nor the reverse.
    const since = encodeURIComponent(instant(0));
    const withDeleted = await t.call(t.keys.live, {
      method: 'GET',
      url: `/customers?updated_since=${since}&include_deleted=true&limit=1`,
    });
    const cursor = encodeURIComponent(withDeleted.json().next_cursor);
    const without = await t.call(t.keys.live, {
      method: 'GET',
      url: `/customers?updated_since=${since}&limit=1&starting_after=${cursor}`,
    });
    expect(without.statusCode).toBe(400);
  });
});
