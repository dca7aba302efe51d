import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openStorage, type Storage } from '../../src/db/index.ts';

/**
 * SQLite's group commit (src/db/dialects/sqlite-group-commit.ts) under the write path
 * (src/db/write.ts): transactions that run together share one COMMIT; each is its own
 * savepoint, so a failing one rolls back alone; a write returns once its own group is
 * durable; a group that fails as a whole (a full disk, a failed COMMIT) fails every write
 * it held, and the next write starts a new group. Another connection to the file (as
 * another process would have) is the witness of what is committed.
 */
describe('SQLite group commit', () => {
  let dir: string;
  let path: string;
  let storage: Storage;
  let witness: SQLite.Database;

  const tag = (id: string) => ({ id, workspace_id: 'wsp_group', name: id, created_at: 1, updated_at: 1 });
  const insertTag = (id: string) => storage.write((tx) => tx.insertInto('tags').values(tag(id)).execute());
  const committedIds = () =>
    (witness.prepare("select id from tags where workspace_id = 'wsp_group' order by id").all() as { id: string }[]).map(
      (r) => r.id,
    );
  /** Settles within a bound, or says it hung. */
  const settled = (p: Promise<unknown>) =>
    Promise.race([
      p.then(
        (value) => ({ status: 'fulfilled' as const, value }),
        (reason: unknown) => ({ status: 'rejected' as const, reason }),
      ),
      new Promise<{ status: 'hung' }>((resolve) => setTimeout(() => resolve({ status: 'hung' }), 10_000)),
    ]);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'venue-group-'));
    path = join(dir, 'db.sqlite');
    storage = await openStorage(path);
    await migrate(storage);
    witness = new SQLite(path, { readonly: true });
  });
  afterEach(async () => {
    witness.close();
    await storage.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('transactions that run together share one COMMIT, and each write returns once it is durable', async () => {
    // Bare transactions (only the write path may use them in src/): finished, visible on
    // this connection, not yet committed for anyone else: they wait for their group.
    await Promise.all(
      ['tag_a', 'tag_b'].map((id) =>
        storage.db.transaction().execute((tx) => tx.insertInto('tags').values(tag(id)).execute()),
      ),
    );
    expect(committedIds()).toEqual([]);
    // A write joins the open group and returns only once the group committed, with it.
    await insertTag('tag_c');
    expect(committedIds()).toEqual(['tag_a', 'tag_b', 'tag_c']);
  });

  it('a failing transaction rolls back alone; the rest of its group commits', async () => {
    const results = await Promise.allSettled([
      insertTag('tag_ok1'),
      storage.write(async (tx) => {
        await tx.insertInto('tags').values(tag('tag_bad')).execute();
        throw new Error('refused');
      }),
      storage.write(async (tx) => {
        await tx.insertInto('tags').values(tag('tag_ok2')).execute();
        await tx.insertInto('tags').values(tag('tag_ok1')).execute(); // a duplicate id: fails inside
      }),
      insertTag('tag_ok3'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(committedIds()).toEqual(['tag_ok1', 'tag_ok3']);
  });

  it('SQLite rolling the whole group back (a full disk) fails every write of that group at once, never "durable"', async () => {
    await sql`create table filler (id integer primary key, v blob)`.execute(storage.db);
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(storage.db);
    // Room for a few small rows, not for a 200 KB one.
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + 8}`).execute(storage.db);
    const big = () =>
      storage.write((tx) =>
        tx
          .insertInto('filler' as 'tags')
          .values({ v: Buffer.alloc(200_000, 1) } as never)
          .execute(),
      );
    // Started together, so they run in this order in one group: two before the big row, two after.
    const writes = [insertTag('tag_1'), insertTag('tag_2'), big(), insertTag('tag_3'), insertTag('tag_4')];
    const outcomes = await Promise.all(writes.map(settled));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    for (const o of outcomes.slice(0, 3)) {
      expect((o as { reason: { code?: string } }).reason.code).toBe('SQLITE_FULL');
    }
    // The writes after the rollback began a new group of their own, and it committed.
    expect(committedIds()).toEqual(['tag_3', 'tag_4']);
    await sql.raw('pragma max_page_count = 1073741823').execute(storage.db);
    await insertTag('tag_5');
    expect(committedIds()).toEqual(['tag_3', 'tag_4', 'tag_5']);
  });

  it('a statement after its group was rolled back fails too, instead of running outside any transaction', async () => {
    await sql`create table filler (id integer primary key, v blob)`.execute(storage.db);
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(storage.db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + 4}`).execute(storage.db);
    const outcome = await settled(
      storage.write(async (tx) => {
        await tx
          .insertInto('filler' as 'tags')
          .values({ v: Buffer.alloc(200_000, 1) } as never)
          .execute()
          .catch(() => undefined); // swallowed: the transaction must still not go on
        await tx.insertInto('tags').values(tag('tag_after')).execute();
      }),
    );
    expect(outcome.status).toBe('rejected');
    expect((outcome as { reason: { code?: string } }).reason.code).toBe('SQLITE_FULL');
    expect(committedIds()).toEqual([]);
  });

  describe('a COMMIT that fails', () => {
    // A deferred foreign key is checked at COMMIT: a way to make exactly the COMMIT fail.
    beforeEach(async () => {
      await sql`pragma foreign_keys = on`.execute(storage.db);
      await sql`create table parent (id text primary key)`.execute(storage.db);
      await sql`create table child (parent_id text references parent(id) deferrable initially deferred)`.execute(
        storage.db,
      );
    });
    const orphan = (tx: Parameters<Parameters<Storage['write']>[0]>[0]) =>
      sql`insert into child (parent_id) values ('nobody')`.execute(tx);

    it('rejects every write of its group with its error; the next write commits', async () => {
      const outcomes = await Promise.all([insertTag('tag_x'), storage.write(orphan), insertTag('tag_y')].map(settled));
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
      for (const o of outcomes) {
        expect((o as { reason: { code?: string } }).reason.code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
      }
      expect(committedIds()).toEqual([]);
      await insertTag('tag_z');
      expect(committedIds()).toEqual(['tag_z']);
    });

    it('close() rethrows it instead of swallowing it', async () => {
      await storage.db.transaction().execute(orphan);
      await expect(storage.close()).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    });
  });

  it('closing the storage commits the open group first', async () => {
    await storage.db.transaction().execute((tx) => tx.insertInto('tags').values(tag('tag_last')).execute());
    await storage.close();
    expect(committedIds()).toEqual(['tag_last']);
  });
});
