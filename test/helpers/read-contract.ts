import { expect, it } from 'vitest';
import type { Db } from '../../src/db/schema.ts';
import { randomBase62 } from '../../src/lib/ids.ts';
import type { Collection } from '../../src/resources/keys/key.model.ts';
import type { TestApp } from './app.ts';
import { insertList, insertTag, nextInstant, type Where } from './fixtures.ts';
import { get, ids, newTenant, walk } from './tenant.ts';

/**
 * What every read collection promises (SPEC "Rules common to all endpoints",
 * DECISIONS "Lists and ids"), as one set of tests each resource's suite runs.
 */
export interface ReadContract<R extends { id: string; created_at: string; updated_at: string }> {
  path: string;
  collection: Collection;
  /** The id prefix of the collection's records. */
  prefix: string;
  /** shared: one copy for every key; mode: test rows for test keys; live-only: none for test keys. */
  mode: 'shared' | 'mode' | 'live-only';
  insert: (db: Db, where: Where, patch?: Partial<R>) => Promise<R>;
  /** A well-formed id of another kind of object, which is a 404 here. */
  otherKindId: string;
}

type Stamped = { id: string; created_at: string };

/** Newest first by created_at, ties by id (both descending). */
export function newestFirst<R extends Stamped>(rows: R[]): R[] {
  return [...rows].sort((a, b) =>
    a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0,
  );
}

export function describeReadContract<R extends { id: string; created_at: string; updated_at: string }>(
  getT: () => TestApp,
  c: ReadContract<R>,
): void {
  it('walks every page newest first, each row once, though rows are added mid-walk', async () => {
    const t = getT();
    const tn = await newTenant(t);
    const made: R[] = [];
    for (let i = 0; i < 5; i++) made.push(await c.insert(t.storage.db, tn.liveRows));
    // Two rows created in the same millisecond: the id breaks the tie.
    const same = nextInstant();
    const stem = randomBase62(21);
    for (const last of ['1', '2']) {
      made.push(
        await c.insert(t.storage.db, tn.liveRows, {
          id: `${c.prefix}_${stem}${last}`,
          created_at: same,
          updated_at: same,
        } as Partial<R>),
      );
    }
    made.push(await c.insert(t.storage.db, tn.liveRows));

    for (const limit of [2, 3]) {
      const before = newestFirst(made);
      let old: R | null = null;
      const { records, pages } = await walk<R>(t, tn.live, `${c.path}?limit=${limit}`, async (index) => {
        made.push(await c.insert(t.storage.db, tn.liveRows)); // newer than the walk: never shown
        if (index === 0) {
          const at = `2020-01-0${limit}T00:00:00.000Z`;
          old = await c.insert(t.storage.db, tn.liveRows, { created_at: at, updated_at: at } as Partial<R>);
          made.push(old);
        }
      });
      // The old row was added behind the walk's position, so it is met once, in its place.
      const expected = newestFirst([...before, old!]);
      expect(ids(records)).toEqual(ids(expected));
      expect(records).toEqual(expected);
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
      expect(pages.at(-1)!.length).toBeLessThanOrEqual(limit);
    }
  });

  it('updated_since keeps rows changed at or after an instant given with an offset', async () => {
    const t = getT();
    const tn = await newTenant(t);
    const rows: R[] = [];
    for (const hour of ['00', '01', '02', '03']) {
      rows.push(
        await c.insert(t.storage.db, tn.liveRows, { updated_at: `2027-06-01T${hour}:00:00.000Z` } as Partial<R>),
      );
    }
    const changedFrom2 = newestFirst(rows.slice(2));
    for (const since of [
      '2027-06-01T12:00:00%2B10:00',
      '2027-06-01T02:00:00Z',
      '2027-06-01T02:00:00.000Z',
      '2027-05-31T21:00:00-0500',
    ]) {
      const res = await get(t, tn.live, `${c.path}?updated_since=${since}`);
      expect(res.status, since).toBe(200);
      expect(ids(res.body.data), since).toEqual(ids(changedFrom2));
    }
    // The filter joins the cursor's binding: a page of it continues only with it.
    const first = await get(t, tn.live, `${c.path}?limit=1&updated_since=2027-06-01T02:00:00Z`);
    expect(first.body.has_more).toBe(true);
    const next = await get(
      t,
      tn.live,
      `${c.path}?limit=1&updated_since=2027-06-01T02:00:00Z&starting_after=${first.body.next_cursor}`,
    );
    expect(ids(next.body.data)).toEqual([changedFrom2[1]!.id]);
    const other = await get(t, tn.live, `${c.path}?limit=1&starting_after=${first.body.next_cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('invalid_request');
  });

  it('updated_since without an offset, or not an instant, is a 400', async () => {
    const t = getT();
    const tn = await newTenant(t);
    for (const since of ['2027-06-01T02:00:00', '2027-06-01', 'yesterday', '2027-13-45T00:00:00Z']) {
      const res = await get(t, tn.live, `${c.path}?updated_since=${since}`);
      expect(res.status, since).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.errors?.[0]?.field).toMatch(/updated_since/);
    }
  });

  it('limit outside 1..100, a non-number limit and an unknown parameter are 400s', async () => {
    const t = getT();
    const tn = await newTenant(t);
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=-1', 'limit=2.5', 'colour=red']) {
      const res = await get(t, tn.live, `${c.path}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe('invalid_request');
    }
    for (const query of ['limit=1', 'limit=100']) {
      expect((await get(t, tn.live, `${c.path}?${query}`)).status, query).toBe(200);
    }
  });

  it('a cursor from another collection, or that is not a cursor, is a 400', async () => {
    const t = getT();
    const tn = await newTenant(t);
    await c.insert(t.storage.db, tn.liveRows);
    const other = c.path === '/tags' ? { path: '/lists', insert: insertList } : { path: '/tags', insert: insertTag };
    await other.insert(t.storage.db, tn.liveRows);
    await other.insert(t.storage.db, tn.liveRows);
    const foreign = await get(t, tn.live, `${other.path}?limit=1`);
    expect(foreign.body.next_cursor).toEqual(expect.any(String));
    for (const cursor of [foreign.body.next_cursor, 'abc', 'WzEsMiwzXQ', '%24%24']) {
      const res = await get(t, tn.live, `${c.path}?starting_after=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    }
  });

  it('retrieves a record with its ETag; If-None-Match with it answers 304', async () => {
    const t = getT();
    const tn = await newTenant(t);
    const record = await c.insert(t.storage.db, tn.liveRows);
    const res = await get(t, tn.live, `${c.path}/${record.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(record);
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await t.call(tn.live, {
      method: 'GET',
      url: `${c.path}/${record.id}`,
      headers: { 'if-none-match': etag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const stale = await get(t, tn.live, `${c.path}/${record.id}`, { 'if-none-match': '"stale"' });
    expect(stale.status).toBe(200);
    expect(stale.body).toEqual(record);
  });

  it("another workspace's id, another kind's id and a malformed id are 404 not_found", async () => {
    const t = getT();
    const mine = await newTenant(t);
    const theirs = await newTenant(t);
    const own = await c.insert(t.storage.db, mine.liveRows);
    const foreign = await c.insert(t.storage.db, theirs.liveRows);
    const list = await get(t, mine.live, `${c.path}?limit=100`);
    expect(ids(list.body.data)).toEqual([own.id]);
    const missing = [
      foreign.id,
      c.otherKindId,
      `${c.prefix}_${randomBase62(22)}`,
      `${c.prefix}_short`,
      `${c.prefix}_${randomBase62(21)}!`,
      own.id.toUpperCase(),
      'nonsense',
      `${c.prefix}_${randomBase62(100)}`, // longer than any id, still only not found
    ];
    for (const id of missing) {
      const res = await get(t, mine.live, `${c.path}/${encodeURIComponent(id)}`);
      expect(res.status, id).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  if (c.mode === 'mode') {
    it('a test key sees only test rows and a live key only live rows', async () => {
      const t = getT();
      const tn = await newTenant(t);
      const liveRow = await c.insert(t.storage.db, tn.liveRows);
      const testRow = await c.insert(t.storage.db, tn.testRows);
      expect((testRow as unknown as { livemode: boolean }).livemode).toBe(false);
      expect((await get(t, tn.live, c.path)).body.data).toEqual([liveRow]);
      expect((await get(t, tn.test, c.path)).body.data).toEqual([testRow]);
      expect((await get(t, tn.test, `${c.path}/${testRow.id}`)).body).toEqual(testRow);
      expect((await get(t, tn.test, `${c.path}/${liveRow.id}`)).status).toBe(404);
      expect((await get(t, tn.live, `${c.path}/${testRow.id}`)).status).toBe(404);
    });
  }

  if (c.mode === 'shared') {
    it('live and test keys see the same records', async () => {
      const t = getT();
      const tn = await newTenant(t);
      const row = await c.insert(t.storage.db, tn.liveRows);
      expect((await get(t, tn.test, c.path)).body.data).toEqual([row]);
      expect((await get(t, tn.live, c.path)).body.data).toEqual([row]);
      expect((await get(t, tn.test, `${c.path}/${row.id}`)).body).toEqual(row);
    });
  }

  if (c.mode === 'live-only') {
    it('a test key gets an empty list and 404 on an id; real records only', async () => {
      const t = getT();
      const tn = await newTenant(t);
      const row = await c.insert(t.storage.db, tn.liveRows);
      expect((await get(t, tn.live, c.path)).body.data).toEqual([row]);
      const list = await get(t, tn.test, `${c.path}?limit=5`);
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ object: 'list', data: [], has_more: false });
      const one = await get(t, tn.test, `${c.path}/${row.id}`);
      expect(one.status).toBe(404);
      expect(one.body.code).toBe('not_found');
      // Parameters are still checked for a test key.
      expect((await get(t, tn.test, `${c.path}?limit=0`)).status).toBe(400);
    });
  }

  it(`a restricted key without ${c.collection} in can_read gets 403 forbidden`, async () => {
    const t = getT();
    const tn = await newTenant(t);
    const row = await c.insert(t.storage.db, tn.liveRows);
    const others = await t.makeKey({
      workspaceId: tn.workspaceId,
      mode: 'live',
      access: 'read',
      restricted: { canRead: c.collection === 'venues' ? ['customers'] : ['venues'], canWrite: [] },
    });
    for (const url of [c.path, `${c.path}/${row.id}`]) {
      const res = await get(t, others, url);
      expect(res.status, url).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
    const allowed = await t.makeKey({
      workspaceId: tn.workspaceId,
      mode: 'live',
      access: 'read',
      restricted: { canRead: [c.collection], canWrite: [] },
    });
    expect((await get(t, allowed, `${c.path}/${row.id}`)).body).toEqual(row);
  });
}
