import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeIdempotencyKeys } from '../../src/jobs/retention.ts';
import { deleteAnswersBefore } from '../../src/resources/writes/idempotency.repo.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { countRows, createCustomer, del, makeTag, post, roomy } from '../helpers/writes.ts';

const HOUR = 3_600_000;

describe.each(ENGINES)('Idempotency-Key on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
  });
  afterAll(async () => t?.close());

  const send = (key: string | undefined, body: unknown, url = '/customers', apiKey = t.keys.test) =>
    t.call(apiKey, {
      method: 'POST',
      url,
      payload: body as object,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  const customersNamed = async (name: string) =>
    (await t.storage.db.selectFrom('customers').select('id').where('first_name', '=', name).execute()).length;

  it('a POST without Idempotency-Key is a 428 and writes nothing', async () => {
    const res = await send(undefined, { first_name: 'NoKey' });
    expect(res.statusCode).toBe(428);
    expect(res.json().code).toBe('precondition_required');
    expect(await customersNamed('NoKey')).toBe(0);
  });

  it('a key over 255 characters, or empty, is a 400; 255 is fine', async () => {
    expect((await send('k'.repeat(256), { first_name: 'Long' })).statusCode).toBe(400);
    expect((await send('', { first_name: 'Long' })).statusCode).toBe(400);
    expect((await send('k'.repeat(255), { first_name: 'Long' })).statusCode).toBe(201);
    expect(await customersNamed('Long')).toBe(1);
  });

  it('a retry answers the stored status and body byte for byte, with Idempotent-Replayed, and writes once', async () => {
    const first = await send('retry-1', { first_name: 'Once', email: 'once@example.com' });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const logged = await countRows(t, 'change_log');
    // The same body with its keys in another order is the same request.
    const again = await send('retry-1', { email: 'once@example.com', first_name: 'Once' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['request-id']).not.toBe(first.headers['request-id']);
    // The stored answer is the first request's: Original-Request names it.
    expect(again.headers['original-request']).toBe(first.headers['request-id']);
    expect(first.headers['original-request']).toBeUndefined();
    expect(await customersNamed('Once')).toBe(1);
    expect(await countRows(t, 'change_log')).toBe(logged);
  });

  it('the same key with another body or path is a 422 idempotency_mismatch', async () => {
    const first = await send('mismatch-1', { first_name: 'Mismatch' });
    expect(first.statusCode).toBe(201);
    const body = await send('mismatch-1', { first_name: 'Other' });
    expect(body.statusCode).toBe(422);
    expect(body.json().code).toBe('idempotency_mismatch');
    const tag = await makeTag(t);
    const path = await send('mismatch-1', { tag }, `/customers/${first.json().id}/tags`);
    expect(path.statusCode).toBe(422);
    expect(await customersNamed('Other')).toBe(0);
  });

  it("keys are per API key: another key's same Idempotency-Key is a new request", async () => {
    const other = await t.makeKey({ name: 'other' });
    expect((await send('shared', { first_name: 'PerKey' })).statusCode).toBe(201);
    expect((await send('shared', { first_name: 'PerKey' }, '/customers', other)).statusCode).toBe(201);
    expect(await customersNamed('PerKey')).toBe(2);
  });

  it("stores the handler's own refusal (409 for a taken email) and replays it even after things change", async () => {
    const owner = await createCustomer(t, t.keys.test, { email: 'held@example.com' });
    const refused = await send('taken-1', { first_name: 'Late', email: 'held@example.com' });
    expect(refused.statusCode).toBe(409);
    await del(t, t.keys.test, `/customers/${owner.id}`);
    const replay = await send('taken-1', { first_name: 'Late', email: 'held@example.com' });
    expect(replay.statusCode).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toContain('application/problem+json');
    expect(replay.body).toBe(refused.body);
    expect(await customersNamed('Late')).toBe(0);
  });

  it('does not store a validation 400: the fixed request may reuse the key', async () => {
    expect((await send('fix-1', { first_name: 'Fixed', unknown: 1 })).statusCode).toBe(400);
    expect((await send('fix-1', { first_name: 'Fixed', phone: '12' })).statusCode).toBe(400);
    expect((await send('fix-1', { first_name: 'Fixed' })).statusCode).toBe(201);
    expect(await customersNamed('Fixed')).toBe(1);
  });

  it('concurrent duplicates: one runs, the others get 409 or the same answer; one customer', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => send('race-1', { first_name: 'Racer' })));
    const created = results.filter((r) => r.statusCode === 201);
    const conflicts = results.filter((r) => r.statusCode === 409);
    expect(created.length + conflicts.length).toBe(8);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body)).size).toBe(1);
    for (const c of conflicts) expect(c.json().code).toBe('conflict');
    expect(await customersNamed('Racer')).toBe(1);
    // Once the first has been answered, the key replays.
    expect((await send('race-1', { first_name: 'Racer' })).body).toBe(created[0]!.body);
  });

  it('is kept 24 hours: after that the key is new again, and the purge job removes the old answer', async () => {
    const start = t.clock.now;
    try {
      expect((await send('day-1', { first_name: 'Daily' })).statusCode).toBe(201);
      t.clock.now = start + 23 * HOUR;
      expect((await send('day-1', { first_name: 'Daily' })).headers['idempotent-replayed']).toBe('true');
      expect(await purgeIdempotencyKeys(t.storage, t.clock.fn)).toBe(0);
      t.clock.now = start + 25 * HOUR;
      const purged = await purgeIdempotencyKeys(t.storage, t.clock.fn);
      expect(purged).toBeGreaterThanOrEqual(1);
      const left = await t.storage.db
        .selectFrom('idempotency_keys')
        .select('idempotency_key')
        .where('idempotency_key', '=', 'day-1')
        .execute();
      expect(left).toEqual([]);
      const fresh = await send('day-1', { first_name: 'Daily' });
      expect(fresh.statusCode).toBe(201);
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();
      expect(await customersNamed('Daily')).toBe(2);
    } finally {
      t.clock.now = start;
    }
  });

  it('an answer over 24 hours old counts for nothing even before the purge: the new request takes its place', async () => {
    const start = t.clock.now;
    try {
      const first = await send('day-2', { first_name: 'Stale' });
      expect(first.statusCode).toBe(201);
      t.clock.now = start + 25 * HOUR;
      const fresh = await send('day-2', { first_name: 'Stale' });
      expect(fresh.statusCode).toBe(201);
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();
      expect(fresh.json().id).not.toBe(first.json().id);
      // The new answer is the one the key replays now.
      const again = await send('day-2', { first_name: 'Stale' });
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(fresh.body);
      expect(await customersNamed('Stale')).toBe(2);
    } finally {
      t.clock.now = start;
    }
  });

  it("the purge takes a busy key's expired answers a batch at a time until none are left", async () => {
    const db = t.storage.db;
    const now = t.clock.now;
    const row = (n: number, createdAt: number) => ({
      key_id: t.keys.test.id,
      idempotency_key: `batch-${n}`,
      workspace_id: t.workspaceId,
      fingerprint: 'f',
      status_code: 201,
      content_type: 'application/json',
      headers: '{}',
      body: '{}',
      request_id: 'req_test',
      created_at: createdAt,
    });
    const expired = Array.from({ length: 7 }, (_, n) => row(n, now - 30 * HOUR - n));
    await db
      .insertInto('idempotency_keys')
      .values([...expired, row(99, now - HOUR)])
      .execute();
    const left = async () =>
      (
        await db
          .selectFrom('idempotency_keys')
          .select('idempotency_key')
          .where('idempotency_key', 'like', 'batch-%')
          .execute()
      )
        .map((r) => r.idempotency_key)
        .sort();
    // One statement removes at most its batch, though all seven rows share one key.
    expect(await t.storage.write((tx) => deleteAnswersBefore(tx, now - 24 * HOUR, 3))).toBe(3);
    expect(await left()).toHaveLength(5);
    expect(await purgeIdempotencyKeys(t.storage, t.clock.fn, { batch: 3 })).toBe(4);
    expect(await left()).toEqual(['batch-99']);
  });

  it('PATCH and DELETE need no Idempotency-Key', async () => {
    const c = await createCustomer(t, t.keys.test);
    expect(
      (await t.call(t.keys.test, { method: 'PATCH', url: `/customers/${c.id}`, payload: { nickname: 'n' } }))
        .statusCode,
    ).toBe(200);
    expect((await del(t, t.keys.test, `/customers/${c.id}`)).statusCode).toBe(200);
  });

  it('tag and list POSTs are idempotent too', async () => {
    const c = await createCustomer(t, t.keys.test);
    const tag = await makeTag(t);
    const first = await post(t, t.keys.test, `/customers/${c.id}/tags`, { tag }, { 'idempotency-key': 'tag-1' });
    const again = await post(t, t.keys.test, `/customers/${c.id}/tags`, { tag }, { 'idempotency-key': 'tag-1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });
});
