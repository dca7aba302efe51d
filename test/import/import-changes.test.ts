import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords } from '../../src/import/import.service.ts';
import { memorySource, type LineSource } from '../../src/import/reader.ts';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { createCustomer, del, get, makeTag, patch, post, roomy, roomyKey } from '../helpers/writes.ts';
import * as r from './records.ts';

/**
 * The import is a writer like any other (DECISIONS "Change log and undo", "Customers"): each
 * customer it writes is a change-log row by the operator `import`, in its transaction, at
 * the version the write gave it; version and updated_at come from the row as it is when
 * written, not as it was when the file was checked.
 */
const operator = { kind: 'operator', id: 'cli:test' } as const;

describe.each(ENGINES)('import and the change log on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
  });
  afterAll(async () => t?.close());

  const run = (source: LineSource) =>
    importRecords(t.storage, { workspaceId: t.workspaceId, source, clock: t.clock.fn });
  const logOf = (id: string) =>
    t.storage.db.selectFrom('change_log').selectAll().where('object_id', '=', id).orderBy('customer_version').execute();
  const undo = (keyId: string) => undoKeyChanges(t.storage, keyId, { by: operator, clock: t.clock.fn });
  /** A customer as GET shows it, ready to be a line of a file. */
  const asRecord = async (id: string) => (await get(t, t.keys.live, id)).json() as Record<string, unknown>;

  it('logs each customer it creates or updates as the operator "import", at the version it gave', async () => {
    const tag = await makeTag(t, 'Imported tag');
    const c = r.customer({ last_name: 'First' });
    expect((await run(memorySource(r.ndjson([c])))).bad_lines).toEqual([]);
    const again = { ...c, last_name: 'Second', tags: [{ id: tag, name: 'Imported tag', added_at: null }] };
    expect((await run(memorySource(r.ndjson([again])))).bad_lines).toEqual([]);
    const log = await logOf(c.id as string);
    expect(log.map((l) => [l.action, l.customer_version, l.actor_kind, l.actor_id, l.key_id, l.livemode])).toEqual([
      ['customer.create', 1, 'operator', 'import', null, 1],
      ['customer.update', 2, 'operator', 'import', null, 1],
    ]);
    expect(JSON.parse(log[1]!.before!)).toEqual({ last_name: 'First', [`tag:${tag}`]: null });
    expect(JSON.parse(log[1]!.after!)).toEqual({
      last_name: 'Second',
      [`tag:${tag}`]: { added_at: null, added_by_key_id: null },
    });
    expect((await get(t, t.keys.live, c.id as string)).json().version).toBe('2');
  });

  it('an undo of a key never deletes a customer the key created that an import changed since', async () => {
    const k = await roomyKey(t, { mode: 'live' });
    const c = await createCustomer(t, k, { email: 'ann@example.com' });
    await run(memorySource(r.ndjson([{ ...(await asRecord(c.id)), last_name: 'Imported' }])));
    const report = await undo(k.id);
    expect(report).toEqual({
      reverted: 0,
      skipped: [
        expect.objectContaining({ customer: c.id, action: 'customer.create', reason: 'changed_since', by: 'import' }),
      ],
    });
    expect((await get(t, t.keys.live, c.id)).json()).toMatchObject({ last_name: 'Imported', version: '2' });
  });

  it('an import that brings back a deleted customer is a restore, so an undo does not delete it again', async () => {
    const k = await roomyKey(t, { mode: 'live' });
    const c = await createCustomer(t, t.keys.live);
    const record = await asRecord(c.id);
    await del(t, k, `/customers/${c.id}`);
    await run(memorySource(r.ndjson([record])));
    expect((await logOf(c.id)).map((l) => l.action)).toEqual([
      'customer.create',
      'customer.delete',
      'customer.restore',
    ]);
    const report = await undo(k.id);
    expect(report.skipped).toEqual([
      expect.objectContaining({ action: 'customer.delete', reason: 'changed_since', by: 'import' }),
    ]);
    expect((await get(t, t.keys.live, c.id)).statusCode).toBe(200);
  });

  it('a client write between the check and the write gets a version of its own and never sees updated_at go back', async () => {
    const c = await createCustomer(t, t.keys.live);
    const line = JSON.stringify({ ...(await asRecord(c.id)), last_name: 'Imported' });
    let pass = 0;
    let clientEtag = '';
    let clientUpdatedAt = 0;
    const source: LineSource = async function* () {
      if (++pass === 2) {
        // The importer has checked the file and read what is stored; a client writes now.
        t.clock.now += 60_000;
        const res = await patch(t, t.keys.live, c.id, { nickname: 'client' });
        clientEtag = res.headers.etag as string;
        clientUpdatedAt = Date.parse(res.json().updated_at);
      }
      yield line;
    };
    expect((await run(source)).bad_lines).toEqual([]);
    const after = await get(t, t.keys.live, c.id);
    expect(clientEtag).toBe('"2"');
    expect(after.headers.etag).toBe('"3"');
    expect(Date.parse(after.json().updated_at)).toBeGreaterThan(clientUpdatedAt);
    const stale = await patch(t, t.keys.live, c.id, { company: 'stale' }, { 'if-match': clientEtag });
    expect(stale.statusCode).toBe(412);
    expect((await logOf(c.id)).map((l) => l.customer_version)).toEqual([1, 2, 3]);
  });

  it('doc and tag rows written after a concurrent change still move updated_at past it', async () => {
    const v = r.venue();
    const tg = r.tag({ name: 'Race' });
    await run(memorySource(r.ndjson([v, tg])));
    const later = Date.parse(v.updated_at as string) + 3_600_000;
    let pass = 0;
    const source: LineSource = async function* () {
      if (++pass === 2) {
        // Another writer moves both rows on after the importer looked at them.
        await t.storage.db
          .updateTable('venues')
          .set({ updated_at: later })
          .where('id', '=', v.id as string)
          .execute();
        await t.storage.db
          .updateTable('tags')
          .set({ updated_at: later })
          .where('id', '=', tg.id as string)
          .execute();
      }
      yield JSON.stringify({ ...v, name: 'Renamed' });
      yield JSON.stringify({ ...tg, name: 'Renamed' });
    };
    expect((await run(source)).bad_lines).toEqual([]);
    const venue = await t.storage.db
      .selectFrom('venues')
      .select('updated_at')
      .where('id', '=', v.id as string)
      .executeTakeFirstOrThrow();
    const tagRow = await t.storage.db
      .selectFrom('tags')
      .select(['name', 'updated_at'])
      .where('id', '=', tg.id as string)
      .executeTakeFirstOrThrow();
    expect(Number(venue.updated_at)).toBeGreaterThan(later);
    expect(tagRow.name).toBe('Renamed');
    expect(Number(tagRow.updated_at)).toBeGreaterThan(later);
  });

  it('a membership the file keeps keeps the key that added it', async () => {
    const tag = await makeTag(t, 'Kept');
    const c = await createCustomer(t, t.keys.live);
    await post(t, t.keys.live, `/customers/${c.id}/tags`, { tag });
    await run(memorySource(r.ndjson([{ ...(await asRecord(c.id)), company: 'Imported Co' }])));
    const link = await t.storage.db
      .selectFrom('customer_tags')
      .selectAll()
      .where('customer_id', '=', c.id)
      .executeTakeFirstOrThrow();
    expect(link.added_by_key_id).toBe(t.keys.live.id);
    const last = (await logOf(c.id)).at(-1)!;
    expect(JSON.parse(last.after!)).toEqual({ company: 'Imported Co' });
  });
});
