import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/db/schema.ts';
import { RECORD_KINDS } from '../../src/import/record-kinds.ts';
import { systemClock } from '../../src/lib/time.ts';
import { seedWorkspace } from '../../src/seed/seed.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { runCliProcess } from '../helpers/server-process.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { createCustomer, makeList, makeTag, post } from '../helpers/writes.ts';

/** `venue-api export --workspace WSP [--mode live|test]`: NDJSON that `venue-api import` takes back. */
type Rec = Record<string, unknown> & { id: string; object: string };

async function exported(url: string, ...args: string[]): Promise<Rec[]> {
  const res = await runCliProcess(['export', ...args], { DATABASE_URL: url }, 120_000);
  if (res.code !== 0) throw new Error(`export failed (${res.code}): ${res.stderr}`);
  expect(res.stderr).toBe('');
  return res.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Rec);
}

/** How many records of each object the workspace holds, read from the tables (deleted customers are not records). */
async function heldInDb(db: Queryable, workspaceId: string, livemode?: boolean): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const kind of Object.values(RECORD_KINDS)) {
    if (livemode === false && kind.mode === 'live-only') continue;
    let q = db
      .selectFrom(kind.table as 'customers')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId);
    if (kind.table === 'customers') q = q.where('deleted_at', 'is', null);
    if (livemode !== undefined && kind.mode === 'mode') q = q.where('livemode', '=', livemode ? 1 : 0);
    const n = Number((await q.executeTakeFirstOrThrow()).n);
    if (n > 0) out[kind.object] = n;
  }
  return out;
}

function perObject(records: Rec[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) out[r.object] = (out[r.object] ?? 0) + 1;
  return out;
}

/** A customer's `version` is the database's own count of its changes: an import starts it at 1. */
const comparable = (records: Rec[]) =>
  records
    .map((r) => {
      if (r.object !== 'customer') return r;
      const { version: _version, ...rest } = r;
      return rest;
    })
    .sort((a, b) => `${a.object}/${a.id}`.localeCompare(`${b.object}/${b.id}`));

describe.each(ENGINES)('venue-api export on %s', (engine) => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-export-'));
  const open: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const o of open) await o.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let t: TestApp;
  const source = async () => {
    if (t) return t;
    t = await makeTestApp(engine);
    open.push(t);
    await seedWorkspace(t.storage, { workspaceId: t.workspaceId, customers: 30 });
    const tag = await makeTag(t, 'Export');
    const list = await makeList(t, 'Exported');
    for (const key of [t.keys.live, t.keys.test]) {
      const c = await createCustomer(t, key, { email: `${randomUUID()}@example.com`, nickname: 'N' });
      expect((await post(t, key, `/customers/${c.id}/tags`, { tag })).statusCode).toBe(200);
      expect((await post(t, key, `/customers/${c.id}/lists`, { list })).statusCode).toBe(200);
      const gone = await createCustomer(t, key, { first_name: 'Gone' });
      expect((await t.call(key, { method: 'DELETE', url: `/customers/${gone.id}` })).statusCode).toBe(200);
    }
    return t;
  };

  it('export then import into an empty database gives back every record', async () => {
    const from = await source();
    const records = await exported(from.storage.url, '--workspace', from.workspaceId);
    expect(perObject(records)).toEqual(await heldInDb(from.storage.db, from.workspaceId));
    expect(records.some((r) => r.object === 'customer' && (r.tags as unknown[]).length > 0)).toBe(true);

    const into: TestStorage = await freshStorage(engine);
    open.push({ close: () => into.drop() });
    const ws = await createWorkspace(into, systemClock, { name: 'Imported' });
    const file = join(dir, `${engine}.ndjson`);
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n'));
    const imported = await runCliProcess(
      ['import', '--workspace', ws.id, file, '--json'],
      { DATABASE_URL: into.url },
      120_000,
    );
    expect(JSON.parse(imported.stdout).bad_lines).toEqual([]);
    expect(imported.code).toBe(0);

    const back = await exported(into.url, '--workspace', ws.id);
    expect(comparable(back)).toEqual(comparable(records));
  }, 180_000);

  it('--mode test exports the test rows and the shared collections only', async () => {
    const from = await source();
    const records = await exported(from.storage.url, '--workspace', from.workspaceId, '--mode', 'test');
    expect(perObject(records)).toEqual(await heldInDb(from.storage.db, from.workspaceId, false));
    expect(records.filter((r) => 'livemode' in r && r.livemode !== false)).toEqual([]);
  }, 120_000);

  it('an unknown workspace is an error with nothing on stdout', async () => {
    const from = await source();
    const res = await runCliProcess(['export', '--workspace', 'wsp_nope'], { DATABASE_URL: from.storage.url });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
  });
});
