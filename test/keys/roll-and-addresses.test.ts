import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { undoKeyChanges } from '../../src/resources/changes/undo.service.ts';
import { addressAllowed, parseAllowedIps } from '../../src/resources/keys/allowed-ips.ts';
import { rollKey, setKeyAllowedIps } from '../../src/resources/keys/key-access.service.ts';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/** DECISIONS "Request log, key rolling, allowed addresses": `keys roll` and `allowed_ips`. */
const operator = { kind: 'operator', name: 'cli:test' } as const;

describe.each(ENGINES)('rolling a key on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  const status = async (secret: string, url = '/key') =>
    (await t.call({ id: '', secret }, { method: 'GET', url })).statusCode;

  it('both secrets work for the overlap, to the second, then only the new one; id, change log and undo are kept', async () => {
    const key = await t.makeKey({ name: 'to roll', mode: 'test', access: 'read_write' });
    const made = await t.call(key, {
      method: 'POST',
      url: '/customers',
      headers: { 'idempotency-key': 'roll-1' },
      payload: { first_name: 'Before', last_name: 'Roll' },
    });
    expect(made.statusCode).toBe(201);
    expect(await status(key.secret)).toBe(200); // cached under the old secret

    t.clock.now += 1_000;
    const rolledAt = t.clock.now;
    const { key: rolled, secret } = await rollKey(t.storage, t.clock.fn, key.id, 3_600, operator);
    expect(rolled.id).toBe(key.id);
    expect(rolled.previousSecretExpiresAt).toBe(rolledAt + 3_600_000);
    expect(secret).not.toBe(key.secret);
    expect(secret).toMatch(/^vw_test_/);
    await t.keysCache.refresh();

    const next = { id: key.id, secret };
    t.clock.now = rolledAt + 3_600_000 - 1;
    expect(await status(key.secret)).toBe(200);
    expect(await status(secret)).toBe(200);
    // The new secret writes as the same key: its change log goes on.
    const patched = await t.call(next, {
      method: 'PATCH',
      url: `/customers/${made.json().id}`,
      payload: { nickname: 'After' },
    });
    expect(patched.statusCode).toBe(200);

    t.clock.now = rolledAt + 3_600_000;
    const old = await t.call(key, { method: 'GET', url: '/key' });
    expect(old.statusCode).toBe(401);
    expect(old.json().code).toBe('unauthorized');
    expect(await status(secret)).toBe(200);

    const log = await t.storage.db
      .selectFrom('change_log')
      .select(['key_id', 'action'])
      .where('object_id', '=', made.json().id)
      .orderBy('customer_version')
      .execute();
    expect(log).toEqual([
      { key_id: key.id, action: 'customer.create' },
      { key_id: key.id, action: 'customer.update' },
    ]);
    const undone = await undoKeyChanges(t.storage, key.id, {
      by: { kind: 'operator', id: 'cli:test' },
      clock: t.clock.fn,
    });
    expect(undone.reverted).toBe(2);

    const audit = await t.storage.db
      .selectFrom('audit_log')
      .selectAll()
      .where('target', '=', key.id)
      .where('action', '=', 'key.rolled')
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('rolling again ends the previous secret at once; 0 ends the old secret now', async () => {
    const key = await t.makeKey({ name: 'twice', mode: 'live', access: 'read' });
    expect(await status(key.secret)).toBe(200);
    t.clock.now += 1_000;
    const first = await rollKey(t.storage, t.clock.fn, key.id, 86_400);
    await t.keysCache.refresh();
    expect(await status(key.secret)).toBe(200);
    expect(await status(first.secret)).toBe(200);

    t.clock.now += 1_000;
    const second = await rollKey(t.storage, t.clock.fn, key.id, 86_400);
    await t.keysCache.refresh();
    expect(await status(key.secret)).toBe(401);
    expect(await status(first.secret)).toBe(200);
    expect(await status(second.secret)).toBe(200);

    t.clock.now += 1_000;
    const third = await rollKey(t.storage, t.clock.fn, key.id, 0);
    expect(third.key.previousSecretExpiresAt).toBeNull();
    await t.keysCache.refresh();
    expect(await status(first.secret)).toBe(401);
    expect(await status(second.secret)).toBe(401);
    expect(await status(third.secret)).toBe(200);
  });

  it('a revoked key cannot be rolled, and an overlap past 7 days or below 0 is refused', async () => {
    const key = await t.makeKey({ name: 'refusals', mode: 'test', access: 'read' });
    for (const overlap of [604_801, -1, 1.5, Number.NaN])
      await expect(rollKey(t.storage, t.clock.fn, key.id, overlap)).rejects.toMatchObject({ code: 'invalid_request' });
    await rollKey(t.storage, t.clock.fn, key.id, 604_800);
    t.clock.now += 1_000;
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'revoke');
    await expect(rollKey(t.storage, t.clock.fn, key.id)).rejects.toMatchObject({
      code: 'conflict',
      detail: 'a revoked key cannot be rolled',
    });
  });
});

describe.each(ENGINES)('allowed addresses on %s', (engine) => {
  let t: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    proxied = await makeTestApp(engine, { env: { TRUST_PROXY: '10.0.0.1' } });
  });
  afterAll(async () => {
    await t?.close();
    await proxied?.close();
  });

  const from = (app: TestApp, key: TestKey, remoteAddress: string, headers: Record<string, string> = {}) =>
    app.call(key, { method: 'GET', url: '/customers', remoteAddress, headers });

  it('a request from elsewhere is 403 forbidden without RateLimit headers; GET /key shows the list', async () => {
    const key = await t.makeKey({
      name: 'bound',
      mode: 'test',
      access: 'read',
      allowedIps: ['203.0.113.0/24', '2001:db8::1'],
    });
    const inside = await from(t, key, '203.0.113.9');
    expect(inside.statusCode).toBe(200);
    expect(inside.headers['ratelimit']).toBeDefined();
    expect((await from(t, key, '2001:db8::1')).statusCode).toBe(200);
    // A dual-stack socket's IPv4-mapped address is read as IPv4.
    expect((await from(t, key, '::ffff:203.0.113.10')).statusCode).toBe(200);

    const outside = await from(t, key, '198.51.100.7');
    expect(outside.statusCode).toBe(403);
    expect(outside.json()).toMatchObject({ code: 'forbidden', detail: 'This key may not be used from 198.51.100.7.' });
    expect(outside.headers['ratelimit']).toBeUndefined();
    expect(outside.headers['ratelimit-policy']).toBeUndefined();

    const shown = await t.call(key, { method: 'GET', url: '/key', remoteAddress: '203.0.113.9' });
    expect(shown.json().allowed_ips).toEqual(['203.0.113.0/24', '2001:db8::1']);
  });

  it('a paused key answers key_paused first, from anywhere', async () => {
    const key = await t.makeKey({ name: 'paused and bound', mode: 'test', access: 'read', allowedIps: ['192.0.2.1'] });
    t.clock.now += 1_000;
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'pause');
    await t.keysCache.refresh();
    const res = await from(t, key, '198.51.100.7');
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('key_paused');
  });

  it('a change of the list is seen on the next poll, and an empty list allows anywhere again; audited', async () => {
    const key = await t.makeKey({ name: 'changing', mode: 'test', access: 'read' });
    expect((await from(t, key, '198.51.100.7')).statusCode).toBe(200);
    t.clock.now += 1_000;
    await setKeyAllowedIps(t.storage, t.clock.fn, key.id, ['192.0.2.0/28'], operator);
    await t.keysCache.refresh();
    expect((await from(t, key, '198.51.100.7')).statusCode).toBe(403);
    expect((await from(t, key, '192.0.2.15')).statusCode).toBe(200);
    t.clock.now += 1_000;
    await setKeyAllowedIps(t.storage, t.clock.fn, key.id, [], operator);
    await t.keysCache.refresh();
    expect((await from(t, key, '198.51.100.7')).statusCode).toBe(200);
    const audit = await t.storage.db.selectFrom('audit_log').select('action').where('target', '=', key.id).execute();
    expect(audit.map((a) => a.action)).toEqual(['key.addresses_set', 'key.addresses_set']);
  });

  it('behind a trusted proxy the client is X-Forwarded-For; from an untrusted peer the header is ignored', async () => {
    const key = await proxied.makeKey({ name: 'proxied', mode: 'test', access: 'read', allowedIps: ['203.0.113.5'] });
    expect((await from(proxied, key, '10.0.0.1', { 'x-forwarded-for': '203.0.113.5' })).statusCode).toBe(200);
    expect((await from(proxied, key, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7' })).statusCode).toBe(403);
    // Not the proxy: its own address counts, whatever the header says.
    expect((await from(proxied, key, '198.51.100.7', { 'x-forwarded-for': '203.0.113.5' })).statusCode).toBe(403);
  });

  it('refuses entries that are not addresses or ranges', async () => {
    for (const bad of ['example.com', '10.0.0.0/33', '2001:db8::/129', '1.2.3.4/8/1', '300.1.1.1'])
      expect(() => parseAllowedIps([bad])).toThrow();
    await expect(t.makeKey({ name: 'bad list', allowedIps: ['not an address'] })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(parseAllowedIps([' 10.0.0.0/8 ', '::ffff:192.0.2.1', '10.0.0.0/8'])).toEqual(['10.0.0.0/8', '192.0.2.1']);
    expect(addressAllowed(['10.0.0.0/8'], 'garbage')).toBe(false);
  });
});
