import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedInsertMany, PreparedQuery } from '../../src/db/prepared.ts';
import { markCustomersSent } from '../../src/jobs/activity.repo.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * db/prepared.ts: a hot statement is built and compiled once per engine and shape, then
 * run with new values, whether on the database or inside any of its transactions (each
 * transaction is a new Kysely object; keying the compiled text by it compiled every write
 * again, the create path's largest cost after SQLite itself).
 */
for (const engine of ENGINES) {
  describe(`prepared queries (${engine})`, () => {
    let storage: TestStorage;
    beforeAll(async () => {
      storage = await freshStorage(engine);
    });
    afterAll(() => storage.drop());

    const tag = (id: string) => ({ id, workspace_id: 'wsp_prepared', name: id, created_at: 1, updated_at: 1 });

    it('builds once for the database and all its transactions, and runs with each call’s values', async () => {
      let builds = 0;
      const byName = new PreparedQuery<{ name: string }, { id: string }>((db, param) => {
        builds++;
        return db.selectFrom('tags').select('id').where('name', '=', param('name'));
      });
      const { db } = storage;
      await db
        .insertInto('tags')
        .values([tag('tag_a'), tag('tag_b')])
        .execute();

      expect(await byName.execute(db, { name: 'tag_a' })).toEqual([{ id: 'tag_a' }]);
      for (const name of ['tag_b', 'tag_a', 'tag_none']) {
        const rows = await db.transaction().execute((tx) => byName.execute(tx, { name }));
        expect(rows).toEqual(name === 'tag_none' ? [] : [{ id: name }]);
      }
      expect(builds).toBe(1);
    });

    it('builds once per shape, and refuses a run missing a value', async () => {
      const shapes: string[] = [];
      const query = new PreparedQuery<{ ws: string; name?: string }, { id: string }>((db, param, shape) => {
        shapes.push(shape);
        const q = db.selectFrom('tags').select('id').where('workspace_id', '=', param('ws'));
        return shape === 'named' ? q.where('name', '=', param('name')) : q.orderBy('id');
      });
      const { db } = storage;
      await db.transaction().execute(async (tx) => {
        expect(await query.execute(tx, { ws: 'wsp_prepared' })).toEqual([{ id: 'tag_a' }, { id: 'tag_b' }]);
        expect(await query.execute(tx, { ws: 'wsp_prepared', name: 'tag_b' }, 'named')).toEqual([{ id: 'tag_b' }]);
      });
      await query.execute(db, { ws: 'wsp_prepared' });
      await query.execute(db, { ws: 'wsp_prepared', name: 'tag_a' }, 'named');
      expect(shapes).toEqual(['', 'named']);
      await expect(query.execute(db, { ws: 'wsp_prepared' }, 'named')).rejects.toThrow(/no value for name/);
    });

    it('refuses a statement that binds a value which is not a parameter, before running it', async () => {
      // A value captured when the query is built would be compiled in once and bound for
      // every later caller: a test key's mode served to a live key.
      const livemode = false;
      const captured = new PreparedQuery<{ ws: string }, { id: string }>((db, param) =>
        db
          .selectFrom('customers')
          .select('id')
          .where('workspace_id', '=', param('ws'))
          .where('livemode', '=', livemode ? 1 : 0),
      );
      await expect(captured.execute(storage.db, { ws: 'wsp_prepared' })).rejects.toThrow(
        /binds 0, which is not a parameter/,
      );
      // Refused again on the next call: nothing was kept from the refused compile.
      await expect(captured.execute(storage.db, { ws: 'wsp_prepared' })).rejects.toThrow(/not a parameter/);
    });

    it('types its parameters: a missing, unknown or mistyped one does not compile', () => {
      const byName = new PreparedQuery<{ ws: string; name: string }, { id: string }>((db, param) =>
        db
          .selectFrom('tags')
          .select('id')
          .where('workspace_id', '=', param('ws'))
          // @ts-expect-error: no parameter "nme"
          .where('name', '=', param('nme')),
      );
      const db = storage.db;
      // Not run: these lines are here for `npm run typecheck`, which must find each error.
      const calls = () => [
        // @ts-expect-error: "name" is missing
        byName.execute(db, { ws: 'wsp_prepared' }),
        // @ts-expect-error: "name" is a string
        byName.execute(db, { ws: 'wsp_prepared', name: 1 }),
      ];
      expect(typeof calls).toBe('function');
    });

    it('inserts many rows as a few statements of fixed sizes, each value in its column', async () => {
      type Row = { id: string; name: string; workspace_id: string; created_at: number; updated_at: number };
      const sizes: number[] = [];
      const insert = new PreparedInsertMany<Row>(
        ['id', 'name', 'workspace_id', 'created_at', 'updated_at'],
        (db, rows) => {
          sizes.push(rows.length);
          return db.insertInto('tags').values(rows as unknown as Row[]);
        },
        64,
      );
      const tag = (id: string, name: string, at: number) => ({
        id,
        name,
        workspace_id: 'wsp_many',
        created_at: at,
        updated_at: at,
      });
      const rows = Array.from({ length: 157 }, (_, i) => tag(`tag_m${i}`, `name ${i}`, i));
      await storage.db.transaction().execute((tx) => insert.run(tx, rows));
      await insert.run(storage.db, [tag('tag_m_last', 'last', 999)]);
      // 157 = 64 + 64 + 16 + 8 + 4 + 1; each size compiled once, 64 reused.
      expect(sizes).toEqual([64, 16, 8, 4, 1]);
      const stored = await storage.db
        .selectFrom('tags')
        .select(['id', 'name', 'created_at'])
        .where('workspace_id', '=', 'wsp_many')
        .execute();
      expect(stored).toHaveLength(158);
      for (const row of stored) {
        const i = row.id.slice('tag_m'.length);
        expect([row.name, Number(row.created_at)]).toEqual(i === '_last' ? ['last', 999] : [`name ${i}`, Number(i)]);
      }
    });

    it('refuses a statement whose values are not the rows’ columns in order', async () => {
      const wrong = new PreparedInsertMany<{ id: string; name: string }>(['id', 'name'], (db, rows) =>
        db.insertInto('tags').values(
          rows.map((r) => ({
            name: r.name as string,
            id: r.id as string,
            workspace_id: 'wsp_x',
            created_at: 1,
            updated_at: 1,
          })),
        ),
      );
      await expect(wrong.run(storage.db, [{ id: 'tag_w', name: 'w' }])).rejects.toThrow(/in order/);
    });

    it('customers sent move last_seen_at forward only, across statements', async () => {
      const row = (i: number, at: number) => ({
        key_id: 'key_sent',
        customer_id: `cus_${String(i).padStart(5, '0')}`,
        workspace_id: 'wsp_sent',
        last_seen_at: at,
      });
      await storage.write((tx) =>
        markCustomersSent(
          tx,
          Array.from({ length: 1_300 }, (_, i) => row(i, 1_000)),
        ),
      );
      // Later for the even ones, earlier for the odd ones: only the later moves.
      await storage.write((tx) =>
        markCustomersSent(
          tx,
          Array.from({ length: 1_300 }, (_, i) => row(i, i % 2 === 0 ? 2_000 : 500)),
        ),
      );
      const seen = await storage.db
        .selectFrom('key_customer_reads')
        .select(['customer_id', 'last_seen_at'])
        .where('key_id', '=', 'key_sent')
        .orderBy('customer_id')
        .execute();
      expect(seen).toHaveLength(1_300);
      expect(seen.every((r, i) => Number(r.last_seen_at) === (i % 2 === 0 ? 2_000 : 1_000))).toBe(true);
    });
  });
}
