import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackgroundCheckpointer } from '../../src/db/dialects/sqlite-checkpointer.ts';
import { migrate, openStorage, type Storage } from '../../src/db/index.ts';

/**
 * The server's WAL is copied into the database file by a worker thread
 * (src/db/dialects/sqlite-checkpointer.ts), not inside a COMMIT on the event loop. The
 * witness is the database file alone, copied without its WAL: it holds a committed row
 * only once a checkpoint has copied it there.
 */
describe('SQLite background checkpoint', () => {
  let dir: string;
  let path: string;
  let storage: Storage | null = null;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'venue-checkpoint-'));
    path = join(dir, 'db.sqlite');
  });
  afterEach(async () => {
    await storage?.close();
    storage = null;
    rmSync(dir, { recursive: true, force: true });
  });

  /** Tags in the database file itself, the WAL left out (0 while even the schema is only in the WAL). */
  function tagsInFileAlone(): number {
    const copy = join(dir, `alone-${Math.random().toString(36).slice(2)}.sqlite`);
    copyFileSync(path, copy);
    const db = new SQLite(copy, { readonly: true });
    try {
      const hasTable = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'tags'").get();
      if (!hasTable) return 0;
      return (db.prepare("select count(*) as n from tags where workspace_id = 'wsp_ckpt'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  }

  async function writeTags(s: Storage, n: number, from = 0): Promise<void> {
    for (let i = from; i < from + n; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          s.write((tx) =>
            tx
              .insertInto('tags')
              .values({ id: `tag_${i + j}`, workspace_id: 'wsp_ckpt', name: `t${i + j}`, created_at: 1, updated_at: 1 })
              .execute(),
          ),
        ),
      );
    }
  }

  async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (check()) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return check();
  }

  it('committed writes reach the database file without a checkpoint on the writing connection', async () => {
    storage = await openStorage(path, { sqliteBackgroundCheckpoint: true });
    await migrate(storage);
    await writeTags(storage, 200);
    expect(await eventually(() => tagsInFileAlone() === 200)).toBe(true);
    // Still one database: the server's connection reads and writes on as before.
    await writeTags(storage, 10, 200);
    const rows = await storage.db.selectFrom('tags').select('id').where('workspace_id', '=', 'wsp_ckpt').execute();
    expect(rows).toHaveLength(210);
  });

  it('without it (the CLI), small writes stay in the WAL until SQLite checkpoints itself', async () => {
    storage = await openStorage(path);
    await migrate(storage);
    await writeTags(storage, 200);
    await new Promise((r) => setTimeout(r, 400));
    expect(tagsInFileAlone()).toBe(0);
    // Closing the last connection checkpoints everything.
    await storage.close();
    storage = null;
    expect(tagsInFileAlone()).toBe(200);
  });

  it('closing the storage ends the worker after the last group is committed', async () => {
    storage = await openStorage(path, { sqliteBackgroundCheckpoint: true });
    await migrate(storage);
    await writeTags(storage, 30);
    await storage.close();
    storage = null;
    expect(tagsInFileAlone()).toBe(30);
  });

  it('a worker that cannot open the database reports it once, and asks for nothing more', async () => {
    const failures: unknown[] = [];
    const checkpointer = new BackgroundCheckpointer(join(dir, 'missing.sqlite'), (err) => failures.push(err));
    checkpointer.written();
    expect(await eventually(() => failures.length === 1)).toBe(true);
    checkpointer.written();
    await checkpointer.close();
    expect(failures).toHaveLength(1);
  });
});
