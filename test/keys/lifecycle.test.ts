import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/** SPEC "Authentication" 8-10, DECISIONS "HTTP and errors": paused 403 everywhere, revoked or expired 401. */
const PATHS = ['/key', '/customers', '/venues', '/customers/cus_0000000000000000000000'];

describe.each(ENGINES)('key lifecycle on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  const statusOf = async (key: TestKey, url: string) => {
    const res = await t.call(key, { method: 'GET', url });
    return { status: res.statusCode, code: res.statusCode >= 400 ? res.json().code : undefined, res };
  };

  it('a paused key gets 403 key_paused on every endpoint, GET /key included, until resumed', async () => {
    const key = await t.makeKey({ name: 'to pause', mode: 'live', access: 'read' });
    expect((await statusOf(key, '/key')).status).toBe(200); // now in the key cache
    t.clock.now += 1_000;
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'pause', 'a person paused it');
    await t.keysCache.refresh(); // what each process's poll does every KEY_REFRESH_MS
    for (const url of PATHS) {
      const { status, code, res } = await statusOf(key, url);
      expect({ url, status, code }).toEqual({ url, status: 403, code: 'key_paused' });
      expect(res.json().detail).toMatch(/resume/);
    }
    const row = await t.storage.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'paused', paused_at: t.clock.now, pause_reason: 'a person paused it' });

    t.clock.now += 1_000;
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'resume');
    await t.keysCache.refresh();
    expect((await statusOf(key, '/key')).status).toBe(200);
    const resumed = await t.storage.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    expect(resumed).toMatchObject({ status: 'active', paused_at: null, pause_reason: null, resumed_at: t.clock.now });
  });

  it('a revoked key gets 401 on every endpoint, paused or not', async () => {
    const key = await t.makeKey({ name: 'to revoke', mode: 'live', access: 'read_write' });
    expect((await statusOf(key, '/key')).status).toBe(200);
    t.clock.now += 1_000;
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'pause');
    t.clock.now += 1_000;
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'revoke');
    await t.keysCache.refresh();
    for (const url of PATHS) {
      const { status, code, res } = await statusOf(key, url);
      expect({ url, status, code }).toEqual({ url, status: 401, code: 'unauthorized' });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('a key past its expires_at gets 401 from that instant, with no refresh needed', async () => {
    const expiresAt = t.clock.now + 60_000;
    const key = await t.makeKey({ name: 'brief', mode: 'test', access: 'read', expiresAt });
    t.clock.now = expiresAt - 1;
    expect((await statusOf(key, '/key')).status).toBe(200);
    t.clock.now = expiresAt;
    for (const url of PATHS) {
      const { status, code } = await statusOf(key, url);
      expect({ url, status, code }).toEqual({ url, status: 401, code: 'unauthorized' });
    }
  });

  it('a key cache picks a change up on its poll, without a refresh call', async () => {
    const cache = t.keysCache;
    const key = await t.makeKey({ name: 'polled', mode: 'live', access: 'read' });
    expect((await statusOf(key, '/key')).status).toBe(200);
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'pause');
    cache.start();
    try {
      let seen = 0;
      for (let i = 0; i < 100 && seen !== 403; i++) {
        await new Promise((r) => setTimeout(r, 100));
        seen = (await statusOf(key, '/key')).status;
      }
      expect(seen).toBe(403);
    } finally {
      cache.stop();
    }
  });
});
