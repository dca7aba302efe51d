import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { CASES, START, useStoreApp } from './fixtures.ts';

const BAD: TestKey = { id: 'key_none', secret: `vw_test_${'a'.repeat(32)}000000` };

/** GET /key from an address, with a key (or a bad one). */
const from = (t: TestApp, remoteAddress: string, key: TestKey | null, headers: Record<string, string> = {}) =>
  t.call(key, { method: 'GET', url: '/key', remoteAddress, headers });

describe.each(CASES)('refused keys per address on %s, %s store', (engine, store) => {
  let t: TestApp;
  useStoreApp(engine, store, (app) => (t = app));

  it('the 31st attempt in a minute and then a valid key from that address are 429; another address is unaffected', async () => {
    for (let i = 0; i < 30; i++) expect((await from(t, '198.51.100.7', BAD)).statusCode).toBe(401);
    const blocked = await from(t, '198.51.100.7', BAD);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ code: 'rate_limited', limit: 'refused_keys_per_minute' });
    expect(blocked.json().detail).toContain('30 refused keys a minute per address');
    expect(blocked.headers['retry-after']).toBe('59');
    const valid = await from(t, '198.51.100.7', t.keys.test);
    expect(valid.statusCode).toBe(429);
    expect(valid.json().limit).toBe('refused_keys_per_minute');
    expect(valid.headers.ratelimit).toBeUndefined(); // nothing tells a right guess from a wrong one
    expect((await from(t, '198.51.100.7', null)).statusCode).toBe(429); // before auth: no key at all
    expect((await from(t, '198.51.100.8', t.keys.test)).statusCode).toBe(200);
    expect((await from(t, '198.51.100.8', BAD)).statusCode).toBe(401);
    t.clock.now += 59_000; // the next minute
    expect((await from(t, '198.51.100.7', t.keys.test)).statusCode).toBe(200);
  });

  it('a blocked address gets 429 for a key cached here, one not yet read and a paused one, all alike', async () => {
    const cached = t.keys.test;
    expect((await from(t, '198.51.100.20', cached)).statusCode).toBe(200);
    const unread = await t.makeKey({});
    const paused = await t.makeKey({});
    await t.storage.db.updateTable('api_keys').set({ status: 'paused' }).where('id', '=', paused.id).execute();
    for (let i = 0; i < 30; i++) expect((await from(t, '198.51.100.21', BAD)).statusCode).toBe(401);
    for (const key of [cached, unread, paused]) {
      const answer = await from(t, '198.51.100.21', key);
      expect(answer.statusCode).toBe(429);
      expect(answer.json().limit).toBe('refused_keys_per_minute');
      expect(answer.headers.ratelimit).toBeUndefined();
      expect(answer.headers['ratelimit-policy']).toBeUndefined();
    }
    t.clock.now += 60_000;
    expect((await from(t, '198.51.100.21', unread)).statusCode).toBe(200);
    expect((await from(t, '198.51.100.21', paused)).json().code).toBe('key_paused');
  });

  it('a request with a key asks the store once: the address and every limit in one call', async () => {
    await from(t, '198.51.100.22', t.keys.test); // read into this process's cache
    const consume = vi.spyOn(t.app.limitStore, 'consume');
    try {
      expect((await from(t, '198.51.100.22', t.keys.test)).statusCode).toBe(200);
      expect(consume).toHaveBeenCalledTimes(1);
      expect(consume.mock.calls[0]![0].map((c) => c.name)).toEqual([
        'refused_keys_per_minute',
        'requests_per_minute',
        'requests_per_day',
        'workspace_requests_per_minute',
      ]);
    } finally {
      consume.mockRestore();
    }
  });

  it('two IPv6 addresses in one /64 share a count; the next /64 does not', async () => {
    for (let i = 0; i < 15; i++) {
      expect((await from(t, '2001:db8:1:2::1', BAD)).statusCode).toBe(401);
      expect((await from(t, '2001:db8:1:2:ffff:ffff:ffff:9', BAD)).statusCode).toBe(401);
    }
    expect((await from(t, '2001:0db8:0001:0002::abcd', t.keys.test)).statusCode).toBe(429);
    expect((await from(t, '2001:db8:1:3::1', t.keys.test)).statusCode).toBe(200);
  });

  it('29 refusals leave the address open, and a valid key does not count', async () => {
    for (let i = 0; i < 29; i++) expect((await from(t, '203.0.113.9', BAD)).statusCode).toBe(401);
    for (let i = 0; i < 5; i++) expect((await from(t, '203.0.113.9', t.keys.test)).statusCode).toBe(200);
    expect((await from(t, '203.0.113.9', BAD)).statusCode).toBe(401);
    expect((await from(t, '203.0.113.9', t.keys.test)).statusCode).toBe(429);
  });
});

describe.each(ENGINES)('refused keys behind a proxy on %s', (engine) => {
  let direct: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    direct = await makeTestApp(engine, { clock: START });
    proxied = await makeTestApp(engine, { clock: START, env: { TRUST_PROXY: '10.0.0.1' } });
  });
  afterAll(async () => {
    await direct?.close();
    await proxied?.close();
  });

  it('with TRUST_PROXY the X-Forwarded-For address is counted', async () => {
    for (let i = 0; i < 30; i++) {
      expect((await from(proxied, '10.0.0.1', BAD, { 'x-forwarded-for': '192.0.2.1' })).statusCode).toBe(401);
    }
    expect((await from(proxied, '10.0.0.1', proxied.keys.test, { 'x-forwarded-for': '192.0.2.1' })).statusCode).toBe(
      429,
    );
    expect((await from(proxied, '10.0.0.1', proxied.keys.test, { 'x-forwarded-for': '192.0.2.2' })).statusCode).toBe(
      200,
    );
  });

  it('without it X-Forwarded-For is ignored and the connecting address is counted', async () => {
    for (let i = 0; i < 30; i++) {
      const res = await from(direct, '10.0.0.1', BAD, { 'x-forwarded-for': `192.0.2.${i + 1}` });
      expect(res.statusCode).toBe(401);
    }
    expect((await from(direct, '10.0.0.1', direct.keys.test, { 'x-forwarded-for': '192.0.2.200' })).statusCode).toBe(
      429,
    );
    expect((await from(direct, '10.0.0.2', direct.keys.test)).statusCode).toBe(200);
  });
});
