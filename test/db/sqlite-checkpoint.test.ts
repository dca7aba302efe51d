import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openStorage, type Storage } from '../../src/db/index.ts';

/**
 * SQLite copies the WAL back into the database file itself (its automatic checkpoint, inside
 * the COMMIT that passes 1,000 pages), as the server's storage opens it. The witness is the
 * database file alone, copied without its WAL: it holds a committed row only once a
 * checkpoint has copied it there.
 */
describe('SQLite checkpoints', () => {
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

  /** `n` tags, ten writes at a time (a group commit each), each with a name of `nameBytes`. */
  async function writeTags(s: Storage, n: number, nameBytes = 10): Promise<void> {
    for (let i = 0; i < n; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          s.write((tx) =>
            tx
              .insertInto('tags')
              .values({
                id: `tag_${i + j}`,
                workspace_id: 'wsp_ckpt',
                name: `t${i + j}`.padEnd(nameBytes, 'n'),
                created_at: 1,
                updated_at: 1,
              })
              .execute(),
          ),
        ),
      );
    }
  }

  it('small writes stay in the WAL until SQLite checkpoints; closing the storage copies them all', async () => {
    storage = await openStorage(path);
    await migrate(storage);
    await writeTags(storage, 200);
    expect(tagsInFileAlone()).toBe(0);
    await storage.close();
    storage = null;
    expect(tagsInFileAlone()).toBe(200);
  });

  it('a WAL past SQLite’s pages is copied into the database file while the storage writes on, and stops growing', async () => {
    storage = await openStorage(path);
    await migrate(storage);
    // About 8 MiB of rows: twice what the WAL holds before SQLite checkpoints.
    await writeTags(storage, 2_000, 4_000);
    expect(tagsInFileAlone()).toBeGreaterThan(0);
    // A checkpoint resets the WAL to be written again from its start: it never holds all the rows.
    expect(statSync(`${path}-wal`).size).toBeLessThan(8 * 1024 * 1024);
    const rows = await storage.db.selectFrom('tags').select('id').where('workspace_id', '=', 'wsp_ckpt').execute();
    expect(rows).toHaveLength(2_000);
  });
});
