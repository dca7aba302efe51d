import { createEndpoint } from '../../src/resources/webhooks/webhook.service.ts';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { copyDatabase, CopyRefused, describeTables, NOT_COPIED, tablesToCopy } from '../../src/db/copy.ts';
import type { Storage } from '../../src/db/index.ts';
import { newId } from '../../src/lib/ids.ts';
import { seedWorkspace } from '../../src/seed/seed.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { insertGiftCard, insertTicket } from '../helpers/fixtures.ts';
import { membershipCountDrift } from '../helpers/membership-counts.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { rowCounts, tableContents } from '../helpers/table-rows.ts';
import { createCustomer, makeList, makeTag, post, staffActor } from '../helpers/writes.ts';

const other = (engine: 'sqlite' | 'postgres') => ENGINES.find((e) => e !== engine) ?? engine;

/**
 * Rows in the tables that API writes and the seed leave empty, so that every table the copy
 * carries has something to carry: a table a later migration adds fails the "every table
 * holds rows" check below until it is filled here, and so is compared too.
 */
async function fillTheRest(t: TestApp): Promise<void> {
  const db = t.storage.db;
  const now = t.clock.now;
  const staff = await staffActor(t, true);
  await db
    .insertInto('console_sessions')
    .values({ token_hash: randomUUID(), staff_id: staff.id, created_at: now, last_seen_at: now, expires_at: now + 1 })
    .execute();
  await db
    .insertInto('console_sign_in_failures')
    .values({ id: randomUUID(), email: 'a@example.com', address: '192.0.2.1', at: now })
    .execute();
  await db
    .insertInto('console_lockouts')
    .values({ subject: 'email:a@example.com', until: now + 900_000 })
    .execute();
  await db
    .insertInto('key_activity_checks')
    .values({
      key_id: t.keys.live.id,
      hour_start: now - (now % 3_600_000),
      workspace_id: t.workspaceId,
      requests: 3,
      request_threshold: null,
      customers_sent: 2,
      customer_threshold: null,
      verdict: null,
    })
    .execute();
  await db
    .insertInto('outbox')
    .values({
      id: newId('email'),
      workspace_id: t.workspaceId,
      recipient: 'k@example.com',
      subject: 'Paused',
      body: 'b',
      error: null,
      created_at: now,
    })
    .execute();
  await db
    .insertInto('limit_counters')
    .values({ counter_id: `day:${t.keys.live.id}`, window_start: now, count: 12 })
    .execute();
  for (const hour of [0, 3_600_000]) {
    await db
      .insertInto('key_activity_hours')
      .values({ key_id: t.keys.live.id, hour_start: now - hour, workspace_id: t.workspaceId, requests: 3 })
      .execute();
  }
  await insertGiftCard(db, { workspaceId: t.workspaceId });
  await insertTicket(db, { workspaceId: t.workspaceId });
  await db.insertInto('meta').values({ name: 'copy-test', value: '{"a":[1,true,null]}' }).execute();
  await db
    .insertInto('audit_log')
    .values({
      id: newId('audit'),
      workspace_id: t.workspaceId,
      at: now,
      actor_kind: 'staff',
      actor_id: staff.id,
      actor: 'a@example.com',
      source: 'console',
      address: '192.0.2.1',
      action: 'key.paused',
      target: t.keys.live.id,
      detail: '{"reason":"copy"}',
    })
    .execute();
  await db
    .insertInto('staff_invitations')
    .values({
      token_hash: randomUUID(),
      workspace_id: t.workspaceId,
      email: 'invited@example.com',
      role: 'staff',
      invited_by: 'a@example.com',
      created_at: now,
      expires_at: now + 1,
      accepted_at: null,
    })
    .execute();
  const job = newId('undo_job');
  await db
    .insertInto('undo_jobs')
    .values({
      id: job,
      workspace_id: t.workspaceId,
      key_id: t.keys.live.id,
      requested_by_kind: 'staff',
      requested_by: staff.id,
      audit_actor: '{"kind":"staff","staffId":"stf_x","email":"a@example.com","address":null}',
      status: 'done',
      total: 1,
      until: now,
      reverted: 0,
      skipped: 1,
      skip_rows: 1,
      error: null,
      claim: null,
      claimed_until: null,
      created_at: now,
      started_at: now,
      updated_at: now,
      finished_at: now,
    })
    .execute();
  await db
    .insertInto('undo_job_skips')
    .values({
      job_id: job,
      seq: 0,
      change_id: newId('change'),
      action: 'customer.update',
      customer_id: newId('customer'),
      field: 'last_name',
      reason: 'changed_since',
      by: 'stf_other',
    })
    .execute();
}

/** A workspace with every kind of row: seeded data, API writes by keys, and the rest. */
async function populated(engine: 'sqlite' | 'postgres'): Promise<TestApp> {
  const t = await makeTestApp(engine);
  await seedWorkspace(t.storage, { workspaceId: t.workspaceId, customers: 12 });
  const tag = await makeTag(t, 'VIP');
  const list = await makeList(t, 'News');
  // An endpoint, so the writes below carry webhook events, and fill the outbox and its deliveries too.
  await createEndpoint(
    t.storage,
    t.clock.fn,
    { allowHttp: true, allowPrivate: true },
    {
      workspaceId: t.workspaceId,
      url: 'http://127.0.0.1:9/hook',
      mode: 'live',
      contactsMasked: false,
      createdBy: 'test',
    },
  );
  for (const key of [t.keys.live, t.keys.test]) {
    const c = await createCustomer(t, key, { email: `${randomUUID()}@example.com`, nickname: 'Nick' });
    expect((await post(t, key, `/customers/${c.id}/tags`, { tag })).statusCode).toBe(200);
    expect((await post(t, key, `/customers/${c.id}/lists`, { list })).statusCode).toBe(200);
    const gone = await createCustomer(t, key, { first_name: 'Gone' });
    expect((await t.call(key, { method: 'DELETE', url: `/customers/${gone.id}` })).statusCode).toBe(200);
  }
  const read = await t.call(t.keys.liveRead, { method: 'GET', url: '/customers?limit=5' });
  expect(read.statusCode).toBe(200);
  await fillTheRest(t);
  return t;
}

/** Every table the copy carries holds at least one row, or the comparison proves nothing for it. */
async function expectEveryTableFilled(storage: Storage, except: string[] = []) {
  const tables = tablesToCopy(await describeTables(storage)).map((t) => t.name);
  const counts = rowCounts(await tableContents(storage));
  expect(tables.filter((name) => !except.includes(name) && !(counts[name]! > 0))).toEqual([]);
}

describe.each(ENGINES)('copy from %s', (engine) => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });
  const target = async (kind: 'sqlite' | 'postgres'): Promise<TestStorage> => {
    const s = await freshStorage(kind);
    open.push({ close: () => s.drop() });
    return s;
  };

  it('carries every row of every table unchanged, in small keyset batches, to the other engine and back', async () => {
    const t = await populated(engine);
    open.push(t);
    // The activity tracker's counts reach the database when the app closes.
    await t.app.close();
    await expectEveryTableFilled(t.storage);
    const before = await tableContents(t.storage);

    const there = await target(other(engine));
    const report = await copyDatabase(t.storage, there, { batchRows: 3 });
    expect(report.tables).toEqual(rowCounts(before));
    expect(await tableContents(there)).toEqual(before);
    // The triggers of the membership tables counted nothing a second time.
    expect(await membershipCountDrift(there.db)).toEqual([]);

    const back = await target(engine);
    await copyDatabase(there, back, { batchRows: 1000 });
    expect(await tableContents(back)).toEqual(before);
  });

  it('every table of the schema is copied or left out with a reason', async () => {
    const s = await target(engine);
    const names = (await describeTables(s)).map((t) => t.name);
    const copied = tablesToCopy(await describeTables(s)).map((t) => t.name);
    expect(names.filter((n) => !copied.includes(n) && !NOT_COPIED[n])).toEqual([]);
    for (const [name, reason] of Object.entries(NOT_COPIED)) {
      expect(names).toContain(name);
      expect(reason.length).toBeGreaterThan(20);
    }
    expect(copied.at(-1)).toBe('customers');
  });

  it('refuses a target that holds data, and writes nothing', async () => {
    const from = await target(engine);
    const into = await target(other(engine));
    await into.db.insertInto('meta').values({ name: 'x', value: '1' }).execute();
    await from.db.insertInto('meta').values({ name: 'y', value: '2' }).execute();
    await expect(copyDatabase(from, into)).rejects.toThrow(CopyRefused);
    await expect(copyDatabase(from, into)).rejects.toThrow(/already holds data \(in meta\)/);
    expect(rowCounts(await tableContents(into)).meta).toBe(1);
  });

  it('refuses a source whose schema is not this version', async () => {
    const from = await target(engine);
    const into = await target(other(engine));
    await sql`delete from kysely_migration where name = '007-membership-counts'`.execute(from.db);
    await expect(copyDatabase(from, into)).rejects.toThrow(/bring it up to date/);
  });
});
