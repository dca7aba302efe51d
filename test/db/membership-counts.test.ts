import { Migrator } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrationProvider } from '../../src/db/migrations/index.ts';
import { membershipCountDrift } from '../helpers/membership-counts.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * Migration 007: customers.tag_count and list_count are the database's, kept by triggers,
 * whoever writes the membership tables and however (one row, many rows a statement, a
 * delete by customer, a row moved to another customer). The suites that write memberships
 * through the API, undo, import, seed and DELETE /test-data end with the same check.
 */
describe.each(ENGINES)('membership counts on %s', (engine) => {
  let storage: TestStorage | undefined;
  afterEach(async () => {
    await storage?.drop();
    storage = undefined;
  });

  const ws = 'wsp_counts';
  const now = 1_700_000_000_000;
  const customer = (id: string) => ({
    id,
    workspace_id: ws,
    livemode: 1,
    first_name: id,
    marketing_consent: 0,
    member: 0,
    version: 1,
    created_at: now,
    updated_at: now,
  });
  const tag = (customerId: string, tagId: string) => ({
    workspace_id: ws,
    customer_id: customerId,
    tag_id: tagId,
    added_at: now,
  });
  const list = (customerId: string, listId: string) => ({
    workspace_id: ws,
    customer_id: customerId,
    list_id: listId,
    status: 'active' as const,
    added_at: now,
  });

  async function counts(s: TestStorage) {
    const rows = await s.db.selectFrom('customers').select(['id', 'tag_count', 'list_count']).orderBy('id').execute();
    return Object.fromEntries(rows.map((r) => [r.id, [r.tag_count, r.list_count]]));
  }

  it('follows inserts of one and many rows, deletes, and a row moved to another customer', async () => {
    storage = await freshStorage(engine);
    const db = storage.db;
    await db
      .insertInto('customers')
      .values([customer('cus_a'), customer('cus_b'), customer('cus_c')])
      .execute();
    expect(await counts(storage)).toEqual({ cus_a: [0, 0], cus_b: [0, 0], cus_c: [0, 0] });

    await db.insertInto('customer_tags').values(tag('cus_a', 'tag_1')).execute();
    await db
      .insertInto('customer_tags')
      .values([tag('cus_a', 'tag_2'), tag('cus_a', 'tag_3'), tag('cus_b', 'tag_1')])
      .execute();
    await db
      .insertInto('customer_lists')
      .values([list('cus_b', 'lst_1'), list('cus_b', 'lst_2')])
      .execute();
    expect(await counts(storage)).toEqual({ cus_a: [3, 0], cus_b: [1, 2], cus_c: [0, 0] });

    await db.deleteFrom('customer_tags').where('customer_id', '=', 'cus_a').where('tag_id', '=', 'tag_2').execute();
    await db.deleteFrom('customer_lists').where('customer_id', '=', 'cus_b').execute();
    expect(await counts(storage)).toEqual({ cus_a: [2, 0], cus_b: [1, 0], cus_c: [0, 0] });

    await db.updateTable('customer_tags').set({ customer_id: 'cus_c' }).where('customer_id', '=', 'cus_a').execute();
    // A change that leaves the customer alone counts nothing.
    await db
      .updateTable('customer_tags')
      .set({ added_at: now + 1 })
      .execute();
    expect(await counts(storage)).toEqual({ cus_a: [0, 0], cus_b: [1, 0], cus_c: [2, 0] });

    // A failed statement leaves the counts as they were.
    await expect(
      db
        .insertInto('customer_tags')
        .values([tag('cus_b', 'tag_9'), tag('cus_b', 'tag_1')])
        .execute(),
    ).rejects.toThrow();
    expect(await counts(storage)).toEqual({ cus_a: [0, 0], cus_b: [1, 0], cus_c: [2, 0] });
    expect(await membershipCountDrift(db)).toEqual([]);
  });

  it('the migration counts the memberships that were there before it', async () => {
    storage = await freshStorage(engine);
    const migrator = new Migrator({ db: storage.db, provider: migrationProvider });
    const down = await migrator.migrateTo('006-membership-reads');
    expect(down.error).toBeUndefined();
    const db = storage.db;
    await db
      .insertInto('customers')
      .values([customer('cus_a'), customer('cus_b')])
      .execute();
    await db
      .insertInto('customer_tags')
      .values([tag('cus_a', 'tag_1'), tag('cus_a', 'tag_2')])
      .execute();
    await db
      .insertInto('customer_lists')
      .values([list('cus_a', 'lst_1'), list('cus_b', 'lst_1')])
      .execute();
    const up = await migrator.migrateToLatest();
    expect(up.error).toBeUndefined();
    expect(await counts(storage)).toEqual({ cus_a: [2, 1], cus_b: [0, 1] });
    await db.insertInto('customer_tags').values(tag('cus_b', 'tag_1')).execute();
    expect(await counts(storage)).toEqual({ cus_a: [2, 1], cus_b: [1, 1] });
  });

  it('a bulk writer that paused them writes the counts itself; the next transaction is counted again', async () => {
    storage = await freshStorage(engine);
    const db = storage.db;
    const { engine: e } = storage;
    const paused = await db.transaction().execute(async (tx) => {
      const paused = await e.pauseMembershipCounts(tx);
      await tx
        .insertInto('customers')
        .values({ ...customer('cus_a'), ...(paused ? { tag_count: 2, list_count: 1 } : {}) })
        .execute();
      await tx
        .insertInto('customer_tags')
        .values([tag('cus_a', 'tag_1'), tag('cus_a', 'tag_2')])
        .execute();
      await tx.insertInto('customer_lists').values(list('cus_a', 'lst_1')).execute();
      return paused;
    });
    // PostgreSQL stands its triggers aside; SQLite's count on.
    expect(paused).toBe(engine === 'postgres');
    expect(await counts(storage)).toEqual({ cus_a: [2, 1] });
    await db.insertInto('customer_tags').values(tag('cus_a', 'tag_3')).execute();
    await db.deleteFrom('customer_lists').execute();
    expect(await counts(storage)).toEqual({ cus_a: [3, 0] });
    expect(await membershipCountDrift(db)).toEqual([]);
  });
});
