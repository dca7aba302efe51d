import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActivityCheck, type ActivityCheckDeps } from '../../src/jobs/activity-check.ts';
import { deleteCustomerReadsBatch, HOUR_MS, hourStart, purgeActivity } from '../../src/jobs/activity.repo.ts';
import { DAY_MS } from '../../src/lib/time.ts';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { addStaff, createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { ENGINES } from '../helpers/storage.ts';
import { addCustomers, seedHours } from './activity-fixtures.ts';

/** 10:30 UTC: the judged hour of a check run now is 09:00–10:00. */
const T0 = Date.UTC(2026, 9, 1, 10, 30);

describe.each(ENGINES)('unusual-activity check on %s', (engine) => {
  let t: TestApp;
  let sink: SmtpSink;
  const deps = (smtpUrl: string | null = sink.url): ActivityCheckDeps => ({
    store: t.storage,
    engine: t.storage.engine,
    clock: t.clock.fn,
    mail: { smtpUrl, mailFrom: 'venue-api <alerts@venue.test>' },
  });

  beforeAll(async () => {
    sink = await startSmtpSink();
    t = await makeTestApp(engine, { clock: T0 });
  });
  afterAll(async () => {
    await t?.close();
    await sink?.close();
  });

  /** A workspace with an owner, a key manager and a plain staff member, and its live customers. */
  async function workspace(customers: number) {
    const ws = await createWorkspace(t.storage, t.clock.fn, { name: 'Busy Venue' });
    const tag = ws.id.slice(-6).toLowerCase();
    for (const role of ['owner', 'key_manager', 'staff'] as const) {
      await addStaff(t.storage, t.clock.fn, {
        workspaceId: ws.id,
        email: `${role}.${tag}@venue.test`,
        name: role,
        role,
      });
    }
    await addCustomers(t.storage.db, ws.id, customers, t.clock.now);
    await addCustomers(t.storage.db, ws.id, 30, t.clock.now, false); // test rows never count
    return { id: ws.id, tag };
  }

  const liveKey = (workspaceId: string, name = 'sync') =>
    t.makeKey({ workspaceId, name, mode: 'live', access: 'read' });

  async function readCustomers(key: TestKey, limit: number): Promise<number> {
    const res = await t.call(key, { method: 'GET', url: `/customers?limit=${limit}` });
    expect(res.statusCode).toBe(200);
    return res.json().data.length;
  }

  async function check(smtpUrl?: string | null) {
    await t.app.activity.flush();
    return runActivityCheck(deps(smtpUrl));
  }

  async function keyRow(id: string) {
    return t.storage.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  it('pauses a key that read most of a 100+ customer workspace after its first 24 hours, and emails its key managers', async () => {
    t.clock.now = T0;
    const ws = await workspace(120);
    const key = await liveKey(ws.id);
    t.clock.now = T0 + 25 * HOUR_MS;
    expect(await readCustomers(key, 100)).toBe(100);

    const before = sink.received.length;
    const result = await check();
    const paused = result.paused.find((p) => p.key === key.id);
    expect(paused).toMatchObject({ rule: 'customers', emails_sent: 2, emails_kept: 0 });
    expect(paused!.reason).toContain('100 distinct customers');
    expect(paused!.reason).toContain('120 live customers');

    const row = await keyRow(key.id);
    expect(row).toMatchObject({ status: 'paused', paused_at: t.clock.now, pause_reason: paused!.reason });

    const mails = (await sink.waitFor(before + 2)).slice(before);
    expect(mails.flatMap((m) => m.to).sort()).toEqual([
      `key_manager.${ws.tag}@venue.test`,
      `owner.${ws.tag}@venue.test`,
    ]);
    for (const mail of mails) {
      expect(mail.subject).toBe('API key "sync" was paused for unusual activity');
      expect(mail.text).toContain(key.id);
      expect(mail.text).toContain(paused!.reason);
    }

    await t.keysCache.refresh();
    for (const url of ['/key', '/customers', '/venues']) {
      const res = await t.call(key, { method: 'GET', url });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('key_paused');
    }
  });

  it('does not hold the same reads against a key in its first 24 hours', async () => {
    t.clock.now = T0;
    const ws = await workspace(120);
    const key = await liveKey(ws.id);
    t.clock.now = T0 + HOUR_MS;
    expect(await readCustomers(key, 100)).toBe(100);
    t.clock.now = T0 + 2 * HOUR_MS;
    expect((await check()).paused.map((p) => p.key)).not.toContain(key.id);
    t.clock.now = T0 + 25 * HOUR_MS; // the reads are still in the trailing 24 hours
    expect((await check()).paused.map((p) => p.key)).not.toContain(key.id);
    expect((await keyRow(key.id)).status).toBe('active');

    // The same reads once the first sync is over do count.
    expect(await readCustomers(key, 100)).toBe(100);
    expect((await check()).paused.map((p) => p.key)).toContain(key.id);
  });

  it('leaves workspaces under 100 live customers out of the customer rule', async () => {
    t.clock.now = T0;
    const ws = await workspace(99);
    const key = await liveKey(ws.id);
    t.clock.now = T0 + 30 * HOUR_MS;
    expect(await readCustomers(key, 100)).toBe(99);
    expect((await check()).paused.map((p) => p.key)).not.toContain(key.id);
  });

  it('pauses a key whose last hour is over 5 times its 7-day hourly average and over 1,000', async () => {
    t.clock.now = T0 - 8 * DAY_MS;
    const ws = await workspace(10);
    const burst = await liveKey(ws.id, 'burst');
    const underFloor = await liveKey(ws.id, 'under floor');
    const busyHabit = await liveKey(ws.id, 'busy habit');
    const judged = hourStart(T0) - HOUR_MS; // 09:00
    const db = t.storage.db;
    await seedHours(db, { id: burst.id, workspaceId: ws.id }, judged - 7 * DAY_MS, judged, 100);
    await seedHours(db, { id: burst.id, workspaceId: ws.id }, judged, judged + HOUR_MS, 990);
    await seedHours(db, { id: underFloor.id, workspaceId: ws.id }, judged - 7 * DAY_MS, judged, 100);
    await seedHours(db, { id: underFloor.id, workspaceId: ws.id }, judged, judged + HOUR_MS, 1000);
    await seedHours(db, { id: busyHabit.id, workspaceId: ws.id }, judged - 7 * DAY_MS, judged, 300);
    await seedHours(db, { id: busyHabit.id, workspaceId: ws.id }, judged, judged + HOUR_MS, 1400);

    // Eleven real requests in the judged hour take the burst key from 990 to 1,001.
    t.clock.now = judged + 15 * 60_000;
    for (let i = 0; i < 11; i++) expect((await t.call(burst, { method: 'GET', url: '/key' })).statusCode).toBe(200);

    t.clock.now = T0;
    const result = await check();
    const mine = result.paused.filter((p) => [burst.id, underFloor.id, busyHabit.id].includes(p.key));
    expect(mine.map((p) => p.key)).toEqual([burst.id]);
    expect(mine[0]!.rule).toBe('requests');
    expect(mine[0]!.reason).toContain('1001 requests');
    expect(mine[0]!.reason).toContain('average of 100.0');
  });

  it('keeps the email in the outbox when SMTP is not configured or refuses it', async () => {
    t.clock.now = T0;
    const ws = await workspace(100);
    const quiet = await liveKey(ws.id, 'no smtp');
    const refused = await liveKey(ws.id, 'smtp down');
    t.clock.now = T0 + 26 * HOUR_MS;
    await readCustomers(quiet, 60);
    const noSmtp = await check(null);
    expect(noSmtp.paused.find((p) => p.key === quiet.id)).toMatchObject({ emails_sent: 0, emails_kept: 2 });
    await readCustomers(refused, 60);
    const down = await check('smtp://127.0.0.1:1');
    expect(down.paused.find((p) => p.key === refused.id)).toMatchObject({ emails_sent: 0, emails_kept: 2 });

    const outbox = await t.storage.db.selectFrom('outbox').selectAll().where('workspace_id', '=', ws.id).execute();
    expect(outbox).toHaveLength(4);
    expect(outbox.filter((m) => m.error === null && m.body.includes(quiet.id))).toHaveLength(2);
    expect(outbox.filter((m) => m.error !== null && m.body.includes(refused.id))).toHaveLength(2);
    expect(new Set(outbox.map((m) => m.recipient))).toEqual(
      new Set([`owner.${ws.tag}@venue.test`, `key_manager.${ws.tag}@venue.test`]),
    );
  });

  it('does not re-pause a resumed key for what it did before the resume', async () => {
    t.clock.now = T0;
    const ws = await workspace(100);
    const key = await liveKey(ws.id);
    t.clock.now = T0 + 30 * HOUR_MS;
    await readCustomers(key, 80);
    expect((await check(null)).paused.map((p) => p.key)).toContain(key.id);
    t.clock.now += 60_000;
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'resume');
    expect((await check(null)).paused.map((p) => p.key)).not.toContain(key.id);
    t.clock.now += 60_000;
    await t.keysCache.refresh();
    await readCustomers(key, 80);
    expect((await check(null)).paused.map((p) => p.key)).toContain(key.id);
  });

  it('counts live keys only, in memory until a flush', async () => {
    t.clock.now = T0 + 40 * DAY_MS;
    const ws = await workspace(5);
    const live = await liveKey(ws.id);
    const test = await t.makeKey({ workspaceId: ws.id, mode: 'test', access: 'read' });
    await readCustomers(live, 5);
    await t.call(live, { method: 'GET', url: '/key' });
    await t.call(test, { method: 'GET', url: '/key' });
    const db = t.storage.db;
    const hours = () => db.selectFrom('key_activity_hours').selectAll().where('workspace_id', '=', ws.id).execute();
    expect(await hours()).toEqual([]); // nothing written on the hot path
    await t.app.activity.flush();
    expect(await hours()).toEqual([
      { key_id: live.id, workspace_id: ws.id, hour_start: hourStart(t.clock.now), requests: 2 },
    ]);
    const reads = await db.selectFrom('key_customer_reads').selectAll().where('workspace_id', '=', ws.id).execute();
    expect(reads).toHaveLength(5);
    expect(new Set(reads.map((r) => r.key_id))).toEqual(new Set([live.id]));
  });

  it('does not count requests refused with 429 (they consume nothing)', async () => {
    t.clock.now = T0 + 42 * DAY_MS;
    const ws = await workspace(5);
    const tight = await t.makeKey({
      workspaceId: ws.id,
      name: 'tight',
      mode: 'live',
      access: 'read',
      limits: { requests_per_minute: 2 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.call(tight, { method: 'GET', url: '/customers' })).statusCode);
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    await t.app.activity.flush();
    const hours = await t.storage.db
      .selectFrom('key_activity_hours')
      .selectAll()
      .where('key_id', '=', tight.id)
      .execute();
    expect(hours).toEqual([{ key_id: tight.id, workspace_id: ws.id, hour_start: hourStart(t.clock.now), requests: 2 }]);
  });

  it('counts the customers in write answers too', async () => {
    t.clock.now = T0 + 45 * DAY_MS;
    const ws = await workspace(0);
    const writer = await t.makeKey({ workspaceId: ws.id, name: 'writer', mode: 'live', access: 'read_write' });
    const made = await t.call(writer, {
      method: 'POST',
      url: '/customers',
      headers: { 'idempotency-key': `create-${ws.tag}` },
      payload: { first_name: 'Written' },
    });
    expect(made.statusCode).toBe(201);
    const id = made.json().id as string;
    await t.app.activity.flush();
    const reads = await t.storage.db
      .selectFrom('key_customer_reads')
      .selectAll()
      .where('key_id', '=', writer.id)
      .execute();
    expect(reads.map((r) => r.customer_id)).toEqual([id]);
  });

  it('counts the customers of PATCH answers and replayed POSTs, and none of a refused write', async () => {
    t.clock.now = T0 + 46 * DAY_MS;
    const ws = await workspace(0);
    const writer = await t.makeKey({ workspaceId: ws.id, name: 'writer', mode: 'live', access: 'read_write' });
    const [kept, refused] = await addCustomers(t.storage.db, ws.id, 2, t.clock.now);
    const sent = async () => {
      await t.app.activity.flush();
      const rows = await t.storage.db
        .selectFrom('key_customer_reads')
        .select(['customer_id', 'last_seen_at'])
        .where('key_id', '=', writer.id)
        .execute();
      return Object.fromEntries(rows.map((r) => [r.customer_id, Number(r.last_seen_at)]));
    };
    const patch = (id: string, ifMatch: string) =>
      t.call(writer, {
        method: 'PATCH',
        url: `/customers/${id}`,
        headers: { 'if-match': ifMatch },
        payload: { nickname: 'N' },
      });
    expect((await patch(kept!, '"1"')).statusCode).toBe(200);
    expect((await patch(refused!, '"9"')).statusCode).toBe(412);
    const create = () =>
      t.call(writer, {
        method: 'POST',
        url: '/customers',
        headers: { 'idempotency-key': `replayed-${ws.tag}` },
        payload: { first_name: 'Replayed' },
      });
    const made = await create();
    const id = made.json().id as string;
    expect(await sent()).toEqual({ [kept!]: t.clock.now, [id]: t.clock.now });
    // The replay sends the stored customer again: its send moves on.
    t.clock.now += 60_000;
    const replayed = await create();
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(await sent()).toEqual({ [kept!]: t.clock.now - 60_000, [id]: t.clock.now });
  });

  it('purges old customer sends a batch at a time until none are left', async () => {
    // Long before every other test's rows, so only these are old enough to go.
    const now = T0 - 100 * DAY_MS;
    const db = t.storage.db;
    const keyId = 'key_purgebatches0000000000';
    const row = (n: number, at: number) => ({
      key_id: keyId,
      customer_id: `cus_purge${n}`,
      workspace_id: t.workspaceId,
      last_seen_at: at,
    });
    const old = Array.from({ length: 5 }, (_, n) => row(n, now - 3 * DAY_MS - n));
    await db
      .insertInto('key_customer_reads')
      .values([...old, row(99, now - HOUR_MS)])
      .execute();
    const left = async () =>
      (await db.selectFrom('key_customer_reads').select('customer_id').where('key_id', '=', keyId).execute()).map(
        (r) => r.customer_id,
      );
    // One statement removes at most its batch, though all five rows share one key.
    expect(await t.storage.write((tx) => deleteCustomerReadsBatch(tx, now - 2 * DAY_MS, 2))).toBe(2);
    expect(await left()).toHaveLength(4);
    await purgeActivity(t.storage, now, { batch: 2 });
    expect(await left()).toEqual(['cus_purge99']);
  });

  it('hourly runs happen once per clock hour', async () => {
    t.clock.now = T0 + 50 * DAY_MS;
    expect((await runActivityCheck(deps(null), { hourly: true })).ran).toBe(true);
    expect((await runActivityCheck(deps(null), { hourly: true })).ran).toBe(false);
    expect((await runActivityCheck(deps(null))).ran).toBe(true); // on demand always runs
    t.clock.now += HOUR_MS;
    expect((await runActivityCheck(deps(null), { hourly: true })).ran).toBe(true);
  });
});
