import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeLogTable } from '../../src/db/tables/change.ts';
import { insertChangeRows } from '../../src/resources/changes/change-log.repo.ts';
import { changeRow } from '../../src/resources/changes/change.model.ts';
import { KEY_LOG_COUNTED, keyLogPage } from '../../src/resources/changes/key-log.repo.ts';
import { migrateDownTo, migrateToLatest } from '../../src/db/migrate.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/**
 * A key's log as the key's page reads it (017-change-log-undo-index): its own changes and the
 * undos of them, newest first, from one index; undo rows an older server wrote (no key named)
 * merged in; a log longer than KEY_LOG_COUNTED is not counted whole.
 */
describe.each(ENGINES)('a key’s log page on %s', (engine) => {
  let t: TestApp;
  const T0 = Date.parse('2026-06-01T00:00:00.000Z');
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  const author = (id: string, kind: 'key' | 'staff' = 'key') => ({
    kind,
    id,
    workspaceId: t.workspaceId,
    livemode: true,
    requestId: null,
  });
  const change = (at: number, customer: string, version: number, reverts?: ChangeLogTable) => ({
    at,
    action: 'customer.update' as const,
    customerId: customer,
    version,
    before: { first_name: `v${version - 1}` },
    after: { first_name: `v${version}` },
    ...(reverts ? { reverts: reverts.id, revertsKey: reverts.key_id } : {}),
  });
  const insert = (rows: ChangeLogTable[]) =>
    t.storage.db.transaction().execute((tx) => insertChangeRows(tx, t.storage.engine, rows));
  const ids = async (keyId: string, offset: number, limit = 20) =>
    (await keyLogPage(t.storage.db, keyId, { offset, limit })).changes.map((c) => c.id);

  it('pages the key’s changes and their undos, newest first, older servers’ undo rows included', async () => {
    const key = t.keys.live.id;
    const other = t.keys.test.id;
    const own = Array.from({ length: 45 }, (_, i) => changeRow(author(key), change(T0 + i, `cus_${i % 7}`, i + 2)));
    const others = Array.from({ length: 10 }, (_, i) => changeRow(author(other), change(T0 + i, 'cus_o', i + 2)));
    await insert([...own, ...others]);
    // Undos of five of the key's changes and one of the other key's, as this version writes them.
    const undos = [0, 3, 10, 20, 44].map((i) =>
      changeRow(author('staff_1', 'staff'), change(T0 + 100 + i, 'cus_u', 100 + i, own[i])),
    );
    const othersUndo = changeRow(author('staff_1', 'staff'), change(T0 + 101, 'cus_o', 50, others[0]));
    // Two as a server older than the migration writes them: no key named.
    const older = [5, 6].map((i) => ({
      ...changeRow(author('staff_1', 'staff'), change(T0 + 50 + i, 'cus_v', 200 + i, own[i])),
      reverts_key_id: null,
    }));
    await insert([...undos, othersUndo, ...older]);
    expect(undos[0]!.reverts_key_id).toBe(key);

    const expected = [...own, ...undos, ...older]
      .sort((a, b) => b.at - a.at || b.customer_version - a.customer_version || (a.id < b.id ? 1 : -1))
      .map((r) => r.id);
    const first = await keyLogPage(t.storage.db, key, { offset: 0, limit: 20 });
    expect(first.total).toBe(52);
    expect(first.older).toBe(true);
    expect([...(await ids(key, 0)), ...(await ids(key, 20)), ...(await ids(key, 40))]).toEqual(expected);
    const last = await keyLogPage(t.storage.db, key, { offset: 40, limit: 20 });
    expect(last.older).toBe(false);
    expect(await ids(key, 60)).toEqual([]);
    // Without the older server's rows: the fast path, from either end.
    await t.storage.db
      .updateTable('change_log')
      .set({ reverts_key_id: key })
      .where(
        'id',
        'in',
        older.map((r) => r.id),
      )
      .execute();
    expect([...(await ids(key, 0)), ...(await ids(key, 20)), ...(await ids(key, 40))]).toEqual(expected);
    expect(await ids(key, 33, 7)).toEqual(expected.slice(33, 40));
    expect((await keyLogPage(t.storage.db, other, { offset: 0, limit: 20 })).total).toBe(11);
  });

  it('says "more than" for a log longer than it counts, and still pages it', async () => {
    const key = (await t.makeKey({ name: 'busy', mode: 'live' })).id;
    const rows = Array.from({ length: KEY_LOG_COUNTED + 5 }, (_, i) =>
      changeRow(author(key), change(T0 + i, `cus_${i % 100}`, i + 2)),
    );
    for (let i = 0; i < rows.length; i += 2_000) await insert(rows.slice(i, i + 2_000));
    const first = await keyLogPage(t.storage.db, key, { offset: 0, limit: 20 });
    expect(first).toMatchObject({ total: null, older: true });
    expect(first.changes.map((c) => c.id)).toEqual(
      rows
        .slice(-20)
        .reverse()
        .map((r) => r.id),
    );
    const last = await keyLogPage(t.storage.db, key, { offset: KEY_LOG_COUNTED, limit: 20 });
    expect(last).toMatchObject({ total: null, older: false });
    expect(last.changes.map((c) => c.id)).toEqual(
      rows
        .slice(0, 5)
        .reverse()
        .map((r) => r.id),
    );
  });

  it('017 fills the key of the undo rows already there, and undoes cleanly', async () => {
    const key = (await t.makeKey({ name: 'before 017', mode: 'live' })).id;
    await migrateDownTo(t.storage, '015-undo-jobs');
    try {
      const own = changeRow(author(key), change(T0 + 1, 'cus_m', 2));
      const undo = changeRow(author('staff_1', 'staff'), change(T0 + 2, 'cus_m', 3, own));
      const orphan = changeRow(author('staff_1', 'staff'), change(T0 + 3, 'cus_m', 4));
      // The rows as the previous version writes them: no reverts_key_id column.
      const strip = ({ reverts_key_id: _k, ...row }: ChangeLogTable) => row;
      await t.storage.db
        .insertInto('change_log')
        .values([own, undo, { ...orphan, reverts: 'change_gone' }].map(strip) as never)
        .execute();
      await migrateToLatest(t.storage);
      const filled = await t.storage.db
        .selectFrom('change_log')
        .select(['id', 'reverts_key_id'])
        .where('id', 'in', [own.id, undo.id, orphan.id])
        .execute();
      expect(Object.fromEntries(filled.map((r) => [r.id, r.reverts_key_id]))).toEqual({
        [own.id]: null,
        [undo.id]: key,
        [orphan.id]: '',
      });
      expect(await ids(key, 0)).toEqual([undo.id, own.id]);
    } finally {
      await migrateToLatest(t.storage);
    }
  });
});
