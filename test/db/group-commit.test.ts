import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openStorage, type Storage } from '../../src/db/index.ts';

/**
 * SQLite's group commit (src/db/dialects/sqlite.ts): transactions that run together share
 * one COMMIT; each is its own savepoint, so a failing one rolls back alone; committed()
 * says when they are durable; closing commits what is open. Another connection to the
 * file (as another process would have) is the witness of what is committed.
 */
describe('SQLite group commit', () => {
  let dir: string;
  let path: string;
  let storage: Storage;
  let witness: SQLite.Database;

  const tag = (id: string) => ({ id, workspace_id: 'wsp_group', name: id, created_at: 1, updated_at: 1 });
  const committedIds = () =>
    (witness.prepare("select id from tags where workspace_id = 'wsp_group' order by id").all() as { id: string }[]).map(
      (r) => r.id,
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'venue-group-'));
    path = join(dir, 'db.sqlite');
    storage = await openStorage(path);
    await migrate(storage);
    await storage.engine.committed();
    witness = new SQLite(path, { readonly: true });
  });
  afterEach(async () => {
    witness.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('transactions that finish together are durable together, only after committed()', async () => {
    const { db } = storage;
    await Promise.all(
      ['tag_a', 'tag_b', 'tag_c'].map((id) =>
        db.transaction().execute((tx) => tx.insertInto('tags').values(tag(id)).execute()),
      ),
    );
    // Finished, visible on this connection, but not yet committed for anyone else.
    expect(committedIds()).toEqual([]);
    expect((await db.selectFrom('tags').select('id').where('workspace_id', '=', 'wsp_group').execute()).length).toBe(3);
    await storage.engine.committed();
    expect(committedIds()).toEqual(['tag_a', 'tag_b', 'tag_c']);
  });

  it('a failing transaction rolls back alone; the rest of its group commits', async () => {
    const { db } = storage;
    const results = await Promise.allSettled([
      db.transaction().execute((tx) => tx.insertInto('tags').values(tag('tag_ok1')).execute()),
      db.transaction().execute(async (tx) => {
        await tx.insertInto('tags').values(tag('tag_bad')).execute();
        throw new Error('refused');
      }),
      db.transaction().execute(async (tx) => {
        await tx.insertInto('tags').values(tag('tag_ok2')).execute();
        await tx.insertInto('tags').values(tag('tag_ok1')).execute(); // a duplicate id: fails inside
      }),
      db.transaction().execute((tx) => tx.insertInto('tags').values(tag('tag_ok3')).execute()),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    await storage.engine.committed();
    expect(committedIds()).toEqual(['tag_ok1', 'tag_ok3']);
  });

  it('nothing open: committed() resolves at once; a later group commits on its own', async () => {
    await storage.engine.committed();
    await storage.db.transaction().execute((tx) => tx.insertInto('tags').values(tag('tag_1')).execute());
    await storage.engine.committed();
    await storage.db.transaction().execute((tx) => tx.insertInto('tags').values(tag('tag_2')).execute());
    await storage.engine.committed();
    expect(committedIds()).toEqual(['tag_1', 'tag_2']);
  });

  it('closing the storage commits the open group first', async () => {
    await storage.db.transaction().execute((tx) => tx.insertInto('tags').values(tag('tag_last')).execute());
    await storage.close();
    expect(committedIds()).toEqual(['tag_last']);
    storage = await openStorage(path); // for afterEach
  });
});
