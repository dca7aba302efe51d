import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeRequestLog } from '../../src/jobs/retention.ts';
import { DAY_MS } from '../../src/lib/time.ts';
import { insertRequestRows } from '../../src/resources/request-log/request-log.repo.ts';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { addStaff } from '../../src/resources/workspaces/workspace.service.ts';
import { cli, failedWith } from '../cli/cli.ts';
import { ConsoleClient } from '../console/client.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/** DECISIONS "Request log, key rolling, allowed addresses": what is kept of a request, and who reads it. */
describe.each(ENGINES)('the request log on %s', (engine) => {
  let t: TestApp;
  let key: TestKey;
  let masked: TestKey;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    key = await t.makeKey({ name: 'logged', mode: 'test', access: 'read_write' });
    masked = await t.makeKey({ name: 'masked', mode: 'test', access: 'read_write', contactsMasked: true });
  });
  afterAll(async () => t?.close());

  const rowOf = async (requestId: string) => {
    await t.app.requestLog.flush();
    return t.storage.db.selectFrom('request_log').selectAll().where('id', '=', requestId).executeTakeFirst();
  };

  it('a read is kept without bodies; a write with both, as sent and as answered', async () => {
    const read = await t.call(key, {
      method: 'GET',
      url: '/customers?limit=2',
      headers: { 'user-agent': 'sync/1.0' },
      remoteAddress: '203.0.113.4',
    });
    expect(read.statusCode).toBe(200);
    expect(await rowOf(read.headers['request-id'] as string)).toMatchObject({
      key_id: key.id,
      workspace_id: t.workspaceId,
      method: 'GET',
      path: '/customers?limit=2',
      status: 200,
      code: null,
      ip: '203.0.113.4',
      user_agent: 'sync/1.0',
      version: read.headers['service-version'],
      request_body: null,
      response_body: null,
      truncated: 0,
    });

    const sent = { first_name: 'Kept', email: 'kept@example.com' };
    const made = await t.call(key, {
      method: 'POST',
      url: '/customers',
      headers: { 'idempotency-key': 'log-1' },
      payload: sent,
    });
    expect(made.statusCode).toBe(201);
    const row = await rowOf(made.headers['request-id'] as string);
    expect(row).toMatchObject({ method: 'POST', status: 201, code: null });
    expect(JSON.parse(row!.request_body!)).toEqual(sent);
    expect(JSON.parse(row!.response_body!)).toEqual(made.json());
    expect(row!.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('an error keeps its code and both bodies; a refused request of a valid key is kept too', async () => {
    const bad = await t.call(key, {
      method: 'POST',
      url: '/customers',
      headers: { 'idempotency-key': 'log-2' },
      payload: { first_name: 42 },
    });
    expect(bad.statusCode).toBe(400);
    const row = await rowOf(bad.headers['request-id'] as string);
    expect(row).toMatchObject({ status: 400, code: bad.json().code, request_body: '{"first_name":42}' });
    expect(JSON.parse(row!.response_body!)).toEqual(bad.json());

    const missing = await t.call(key, { method: 'GET', url: '/customers/cus_0000000000000000000000' });
    expect(await rowOf(missing.headers['request-id'] as string)).toMatchObject({ status: 404, code: 'not_found' });

    // No valid key: nothing to file it under.
    const nobody = await t.call({ id: '', secret: 'vw_test_nope' }, { method: 'GET', url: '/customers' });
    expect(nobody.statusCode).toBe(401);
    expect(await rowOf(nobody.headers['request-id'] as string)).toBeUndefined();
  });

  it("a masked key's bodies are masked as it sees records, and no secret is ever stored", async () => {
    const made = await t.call(masked, {
      method: 'POST',
      url: '/customers',
      headers: { 'idempotency-key': 'log-3' },
      payload: { first_name: 'Masked', email: 'jo@example.com', phone: '+61412345678', nickname: key.secret },
    });
    expect(made.statusCode).toBe(201);
    const row = await rowOf(made.headers['request-id'] as string);
    expect(JSON.parse(row!.request_body!)).toEqual({
      first_name: 'Masked',
      email: 'j***@example.com',
      phone: '+*********78',
      nickname: '[redacted]',
    });
    expect(row!.response_body).toContain('j***@example.com');
    expect(row!.response_body).not.toContain('jo@example.com');
    expect(row!.response_body).not.toContain(key.secret);
    expect(row!.response_body).toContain('[redacted]');

    const found = await t.call(masked, { method: 'GET', url: '/customers?email=jo%40example.com' });
    expect((await rowOf(found.headers['request-id'] as string))!.path).toBe('/customers?email=j***%40example.com');
  });

  it('a body past 16 KiB is cut there, at a character, and marked truncated', async () => {
    const long = 'é'.repeat(10_000); // 20,000 bytes
    const res = await t.call(key, {
      method: 'POST',
      url: '/customers',
      headers: { 'idempotency-key': 'log-4' },
      payload: { first_name: long },
    });
    expect(res.statusCode).toBe(400);
    const row = await rowOf(res.headers['request-id'] as string);
    expect(row!.truncated).toBe(1);
    expect(Buffer.byteLength(row!.request_body!)).toBeLessThanOrEqual(16 * 1024);
    // 15 bytes of `{"first_name":"`, then 8,184 whole é (2 bytes each); the half of the next is left out.
    expect(row!.request_body).toBe(`{"first_name":"${'é'.repeat(8_184)}`);
  });

  it('a paused key is kept with key_paused; rows older than REQUEST_LOG_DAYS are purged', async () => {
    const paused = await t.makeKey({ name: 'to pause', mode: 'test', access: 'read' });
    t.clock.now += 1_000;
    await changeKeyStatus(t.storage, t.clock.fn, paused.id, 'pause');
    await t.keysCache.refresh();
    const res = await t.call(paused, { method: 'GET', url: '/customers' });
    expect(await rowOf(res.headers['request-id'] as string)).toMatchObject({ status: 403, code: 'key_paused' });

    const before = await t.storage.db.selectFrom('request_log').select('id').execute();
    t.clock.now += 15 * DAY_MS;
    const fresh = await t.call(key, { method: 'GET', url: '/key' });
    await rowOf(fresh.headers['request-id'] as string);
    expect(await purgeRequestLog(t.storage, t.clock.fn, 14)).toBe(before.length);
    const left = await t.storage.db.selectFrom('request_log').select('id').execute();
    expect(left.map((r) => r.id)).toEqual([fresh.headers['request-id']]);
  });

  it('a batch of any size is written whole, every column as given, and a batch written twice adds nothing', async () => {
    const rows = Array.from({ length: 301 }, (_, i) => ({
      id: `req_batch${String(i).padStart(17, '0')}`,
      workspace_id: t.workspaceId,
      key_id: key.id,
      method: i % 2 ? 'POST' : 'GET',
      path: `/customers?n=${i}`,
      status: 200 + i,
      code: i % 3 ? null : 'conflict',
      duration_ms: i,
      ip: '192.0.2.1',
      user_agent: i % 5 ? 'agent' : null,
      version: '2026-01-01',
      request_body: i % 2 ? `{"n":${i}}` : null,
      response_body: i % 2 ? '{}' : null,
      truncated: i % 7 ? 0 : 1,
      created_at: t.clock.now + i,
    }));
    await t.storage.write((tx) => insertRequestRows(tx, rows));
    await t.storage.write((tx) => insertRequestRows(tx, rows.slice(0, 3)));
    const read = await t.storage.db
      .selectFrom('request_log')
      .selectAll()
      .where('id', 'like', 'req_batch%')
      .orderBy('id')
      .execute();
    expect(read.map((r) => ({ ...r, created_at: Number(r.created_at) }))).toEqual(rows);
  });
});

describe.each(ENGINES)('reading the request log on %s', (engine) => {
  let t: TestApp;
  let key: TestKey;
  let owner: ConsoleClient;
  let staff: ConsoleClient;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await makeTestApp(engine);
    key = await t.makeKey({ name: 'read back', mode: 'test', access: 'read_write' });
    for (const role of ['owner', 'staff'] as const)
      await addStaff(t.storage, t.clock.fn, {
        workspaceId: t.workspaceId,
        email: `${role}@example.com`,
        name: role,
        role,
        password: 'right password',
      });
    owner = new ConsoleClient(t.app);
    await owner.signIn('owner@example.com', 'right password');
    staff = new ConsoleClient(t.app);
    await staff.signIn('staff@example.com', 'right password');
    for (let i = 0; i < 3; i++) {
      t.clock.now += 1_000;
      ids.push(
        (await t.call(key, { method: 'GET', url: `/customers?limit=${i + 1}` })).headers['request-id'] as string,
      );
    }
    t.clock.now += 1_000;
    const bad = await t.call(key, {
      method: 'POST',
      url: '/customers',
      headers: { 'idempotency-key': 'read-1' },
      payload: { first_name: '<script>alert(1)</script>', nope: true },
    });
    ids.push(bad.headers['request-id'] as string);
    await t.app.requestLog.flush();
  });
  afterAll(async () => t?.close());

  it('the console shows a key’s requests newest first, filters them, and a request with its bodies, escaped', async () => {
    const list = await owner.get(`/console/keys/${key.id}/requests`);
    expect(list.statusCode).toBe(200);
    const order = ids.map((id) => list.body.indexOf(id));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => b - a)).toEqual(order);

    const errors = await owner.get(`/console/keys/${key.id}/requests?status=4xx`);
    expect(errors.body).toContain(ids[3]);
    expect(errors.body).not.toContain(ids[0]);

    const byId = await owner.get(`/console/keys/${key.id}/requests?id=${ids[1]}`);
    expect(byId.statusCode).toBe(303);
    expect(byId.headers.location).toBe(`/console/requests/${ids[1]}`);

    const detail = await owner.get(`/console/requests/${ids[3]}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('POST /customers');
    expect(detail.body).toContain('&lt;script&gt;');
    expect(detail.body).not.toContain('<script>alert');
    expect(detail.body).toContain('invalid_request');
  });

  it('the keys page finds any request of the workspace by id; staff get 403', async () => {
    const found = await owner.get(`/console/requests?id=${ids[0]}`);
    expect(found.statusCode).toBe(303);
    expect(found.headers.location).toBe(`/console/requests/${ids[0]}`);
    const unknown = await owner.get('/console/requests?id=req_0000000000000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('No request req_0000000000000000000000');
    expect((await owner.get('/console/keys')).body).toContain('Find a request by its id');

    for (const url of [
      `/console/keys/${key.id}/requests`,
      `/console/requests/${ids[0]}`,
      `/console/requests?id=${ids[0]}`,
    ])
      expect((await staff.get(url)).statusCode).toBe(403);
  });

  it('venue-api requests lists a key’s rows without bodies; requests show gives one with its bodies', async () => {
    const listed = await cli(t.storage, 'requests', key.id, '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const rows = listed.json();
    expect(rows.map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
    expect(rows[0]).not.toHaveProperty('request_body');
    expect(rows[0]).toMatchObject({ key: key.id, method: 'POST', status: 400 });

    const errors = await cli(t.storage, 'requests', key.id, '--status', '2xx', '--limit', '2', '--json');
    expect(errors.code, errors.stdout + errors.stderr).toBe(0);
    expect(errors.json().map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);

    const shown = await cli(t.storage, 'requests', 'show', ids[3]!, '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json()).toMatchObject({ id: ids[3], code: 'invalid_request', truncated: false });
    expect(JSON.parse(shown.json().request_body)).toMatchObject({ nope: true });

    expect(failedWith(await cli(t.storage, 'requests', 'show', 'req_0000000000000000000000'))).toMatch(/no request/);
    expect(failedWith(await cli(t.storage, 'requests', key.id, '--limit', '1001'))).toMatch(/1000|1,000/);
  });
});
