import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { param, PreparedQuery } from '../../src/db/prepared.ts';
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
      const byName = new PreparedQuery<{ name: string }, { id: string }>((db) => {
        builds++;
        return db.selectFrom('tags').select('id').where('name', '=', param<string>('name'));
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
      const query = new PreparedQuery<{ ws: string; name?: string }, { id: string }>((db, shape) => {
        shapes.push(shape);
        const q = db.selectFrom('tags').select('id').where('workspace_id', '=', param<string>('ws'));
        return shape === 'named' ? q.where('name', '=', param<string>('name')) : q.orderBy('id');
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
  });
}
