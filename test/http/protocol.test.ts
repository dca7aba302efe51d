import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { ERROR_CODES } from '../../src/errors.ts';
import { encodeCursor } from '../../src/lib/cursor.ts';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES, freshStorage } from '../helpers/storage.ts';

/** DECISIONS "HTTP and errors", row by row, on the read surface. */
describe.each(ENGINES)('protocol on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  const problem = (
    res: { statusCode: number; headers: Record<string, unknown>; json(): any },
    status: number,
    code: string,
  ) => {
    expect(res.statusCode).toBe(status);
    expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body).toMatchObject({ status, code, type: `http://api.test/docs/errors#${code}` });
    expect(typeof body.title).toBe('string');
    expect(typeof body.detail).toBe('string');
    expect(body.request_id).toBe(res.headers['request-id']);
    return body;
  };

  it('serves the current version when Service-Version is absent', async () => {
    const res = await t.app.inject({ url: '/key', headers: { authorization: `Bearer ${t.keys.test.secret}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['service-version']).toBe('2026-10-08');
  });

  it('refuses a version it does not accept with 400 unsupported_version naming the accepted ones', async () => {
    for (const v of ['2020-01-01', 'yesterday', '']) {
      const res = await t.call(t.keys.test, { url: '/key', headers: { 'service-version': v } });
      const body = problem(res, 400, 'unsupported_version');
      expect(body.detail).toContain('2026-10-08');
    }
  });

  it('answers every kind of bad key with the same 401 and WWW-Authenticate', async () => {
    const expired = await t.makeKey({ name: 'short', expiresAt: t.clock.now + 60_000 });
    const revoked = await t.makeKey({ name: 'gone' });
    await changeKeyStatus(t.storage, t.clock.fn, revoked.id, 'revoke');
    await t.keysCache.refresh();
    const almost = t.keys.test.secret.slice(0, -1) + (t.keys.test.secret.endsWith('A') ? 'B' : 'A');
    const attempts: Record<string, string | undefined> = {
      missing: undefined,
      'not bearer': `Basic ${Buffer.from('a:b').toString('base64')}`,
      malformed: 'Bearer nope',
      'bad checksum': `Bearer ${almost}`,
      unknown: `Bearer vw_test_${'a'.repeat(32)}000000`,
      revoked: `Bearer ${revoked.secret}`,
    };
    const details = new Set<string>();
    for (const [, header] of Object.entries(attempts)) {
      const res = await t.app.inject({ url: '/venues', headers: header ? { authorization: header } : {} });
      const body = problem(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      // Every Bearer value gets one answer, so a guess learns nothing from the detail.
      if (header?.startsWith('Bearer')) details.add(body.detail);
    }
    expect(details.size).toBe(1);
    t.clock.now += 120_000;
    try {
      problem(await t.call(expired, { url: '/key' }), 401, 'unauthorized');
    } finally {
      t.clock.now -= 120_000;
    }
  });

  it('a paused key gets 403 key_paused on every endpoint, GET /key included', async () => {
    const key = await t.makeKey({ name: 'to pause' });
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'pause', 'test');
    await t.keysCache.refresh();
    for (const url of ['/key', '/venues', '/customers']) problem(await t.call(key, { url }), 403, 'key_paused');
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'resume');
    await t.keysCache.refresh();
    expect((await t.call(key, { url: '/key' })).statusCode).toBe(200);
  });

  it('an unknown path is 404 and a known path with another method is 405 with Allow', async () => {
    problem(await t.call(t.keys.test, { url: '/nothing-here' }), 404, 'not_found');
    const res = await t.call(t.keys.test, { method: 'PUT', url: '/venues' });
    problem(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
    // A path with a parameter, and a path that only has DELETE.
    const one = await t.call(t.keys.test, { method: 'PUT', url: '/customers/cus_anything' });
    problem(one, 405, 'method_not_allowed');
    expect(one.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
    const untag = await t.call(t.keys.test, { method: 'GET', url: '/customers/cus_anything/tags/tag_anything' });
    expect(untag.headers.allow).toBe('DELETE');
    // QUERY, which Fastify refuses without a Content-Type before any route is asked, likewise.
    const query = await t.call(t.keys.test, { method: 'QUERY' as 'GET', url: '/key' });
    problem(query, 405, 'method_not_allowed');
    expect(query.headers.allow).toBe('GET, HEAD');
    problem(await t.call(t.keys.test, { method: 'QUERY' as 'GET', url: '/nothing-here' }), 404, 'not_found');
  });

  it('a 404 or 405 to a valid key carries its RateLimit headers and counts against its minute', async () => {
    const key = await t.makeKey({ name: 'counted', limits: { requests_per_minute: 50 } });
    const left = (res: { headers: Record<string, unknown> }) =>
      Number(/r=(\d+)/.exec(String(res.headers.ratelimit))?.[1]);
    const first = await t.call(key, { url: '/key' });
    const unknown = await t.call(key, { url: '/nothing-here' });
    problem(unknown, 404, 'not_found');
    expect(unknown.headers['ratelimit-policy']).toBe('"default";q=50;w=60');
    expect(left(unknown)).toBe(left(first) - 1);
    const wrongMethod = await t.call(key, { method: 'PUT', url: '/venues' });
    problem(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers['ratelimit-policy']).toBe('"default";q=50;w=60');
    expect(left(wrongMethod)).toBe(left(first) - 2);
  });

  it('a 404 or 405 without a valid key is the plain answer: no RateLimit, no 401', async () => {
    const headers = [undefined, 'Bearer nope', `Bearer vw_test_${'a'.repeat(32)}000000`];
    for (const authorization of headers) {
      const unknown = await t.app.inject({ url: '/nothing-here', headers: authorization ? { authorization } : {} });
      problem(unknown, 404, 'not_found');
      expect(unknown.headers.ratelimit).toBeUndefined();
      const wrongMethod = await t.app.inject({
        method: 'PUT',
        url: '/venues',
        headers: authorization ? { authorization } : {},
      });
      problem(wrongMethod, 405, 'method_not_allowed');
      expect(wrongMethod.headers.ratelimit).toBeUndefined();
    }
  });

  it('query mistakes are 400 invalid_request with the field named', async () => {
    const cases = [
      '/venues?limit=0',
      '/venues?limit=101',
      '/venues?limit=abc',
      '/venues?colour=blue',
      '/venues?starting_after=garbage',
      '/venues?updated_since=2026-01-01T00:00:00',
      '/venues?updated_since=tomorrow',
      '/customers?limit=1&limit=2',
    ];
    for (const url of cases) {
      const body = problem(await t.call(t.keys.test, { url }), 400, 'invalid_request');
      expect(body.errors?.length ?? 0).toBeGreaterThan(0);
    }
  });

  it('a cursor made for one list is refused by another list and by other filters', async () => {
    const venuesCursor = encodeCursor('venue', { updated_since: null }, { createdAt: 1, id: 'ven_' + 'x'.repeat(22) });
    expect((await t.call(t.keys.test, { url: `/venues?starting_after=${venuesCursor}` })).statusCode).toBe(200);
    problem(await t.call(t.keys.test, { url: `/customers?starting_after=${venuesCursor}` }), 400, 'invalid_request');
    problem(
      await t.call(t.keys.test, { url: `/venues?updated_since=2026-01-01T00:00:00Z&starting_after=${venuesCursor}` }),
      400,
      'invalid_request',
    );
  });

  it('ids of the wrong shape or prefix are 404, never 400', async () => {
    for (const id of [
      'ven_' + 'a'.repeat(300),
      'x',
      'ven_short',
      'cus_' + 'a'.repeat(22),
      'VEN_' + 'a'.repeat(22),
      'ven_' + 'a'.repeat(22) + '%20',
    ]) {
      problem(await t.call(t.keys.test, { url: `/venues/${id}` }), 404, 'not_found');
    }
  });

  it('a NUL character anywhere in a query is a 400, never a database error', async () => {
    for (const url of [
      '/bookings?number=%00',
      '/orders?number=a%00b',
      '/customers?email=x%00y@example.com',
      '/venues?updated_since=%00',
    ]) {
      problem(await t.call(t.keys.test, { url }), 400, 'invalid_request');
    }
  });

  it('a lone UTF-16 surrogate in a body is a 400: no engine stores it as sent', async () => {
    const res = await t.call(t.keys.test, {
      method: 'POST',
      url: '/customers',
      headers: { 'idempotency-key': 'surrogate-1', 'content-type': 'application/json' },
      payload: '{"first_name":"\\ud800"}',
    });
    problem(res, 400, 'invalid_request');
  });

  it('a forged cursor (valid binding, impossible id or instant) is a 400', async () => {
    for (const pos of [
      { createdAt: 1, id: 'ven_a\u0000b' },
      { createdAt: -5, id: 'ven_' + 'a'.repeat(22) },
      { createdAt: 1, id: 'x'.repeat(40) },
    ]) {
      const cursor = encodeCursor('venue', { updated_since: null }, pos);
      problem(await t.call(t.keys.test, { url: `/venues?starting_after=${cursor}` }), 400, 'invalid_request');
    }
  });

  it('an impossible instant is refused, not rolled over into another day', async () => {
    for (const v of ['2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01t00:00:00z']) {
      problem(
        await t.call(t.keys.test, { url: `/venues?updated_since=${encodeURIComponent(v)}` }),
        400,
        'invalid_request',
      );
    }
  });

  it('a key-guessing address is still answered by /health and /openapi.json', async () => {
    for (let i = 0; i < 31; i++) {
      await t.app.inject({ url: '/key', remoteAddress: '203.0.113.9', headers: { authorization: 'Bearer nope' } });
    }
    const blocked = await t.app.inject({
      url: '/key',
      remoteAddress: '203.0.113.9',
      headers: { authorization: `Bearer ${t.keys.test.secret}` },
    });
    expect(blocked.statusCode).toBe(429);
    expect((await t.app.inject({ url: '/health', remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/openapi.json', remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
  });

  it('a URL the router cannot decode is a 400 problem', async () => {
    problem(await t.call(t.keys.test, { url: '/venues/%E0%A4%A' }), 400, 'invalid_request');
  });

  it('every answer, errors too, carries Request-Id, Service-Version and Cache-Control: no-store', async () => {
    for (const [key, url] of [
      [t.keys.test, '/key'],
      [null, '/key'],
      [t.keys.test, '/missing'],
    ] as const) {
      const res = await t.call(key, { url });
      expect(res.headers['request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/);
      expect(res.headers['service-version']).toBe('2026-10-08');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('serves the error documents every problem type links to, one anchor per code', async () => {
    const res = await t.app.inject({ url: '/docs/errors' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const code of ERROR_CODES) expect(res.body).toContain(`id="${code}"`);
  });

  it('publishes OpenAPI 3.1 without a key', async () => {
    const res = await t.app.inject({ url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.json().openapi).toBe('3.1.0');
  });
});

describe('configuration', () => {
  it('refuses TRUST_PROXY=true: it must name the proxies', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy).toBe('10.0.0.0/8,127.0.0.1');
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
  });
});

describe('logs', () => {
  it('never hold a query string (an email look-up stays out of the logs)', async () => {
    const storage = await freshStorage('sqlite');
    const lines: string[] = [];
    const stream = { write: (line: string) => lines.push(line) };
    const { app } = await buildApp(loadConfig({}), { storage, logger: { level: 'info', stream } });
    await app.ready();
    await app.inject({ url: '/customers?email=secret.person@example.com' });
    await app.close();
    await storage.drop();
    expect(lines.join('\n')).toContain('/customers');
    expect(lines.join('\n')).not.toContain('secret.person');
  });
});

describe('unexpected errors', () => {
  it('answer 500 internal_error with no stack or internals', async () => {
    const storage = await freshStorage('sqlite');
    const { app } = await buildApp(loadConfig({}), { storage, logger: false });
    app.get('/boom', { config: { access: { kind: 'public' } } }, async () => {
      throw new Error('secret internal detail at /etc/passwd');
    });
    await app.ready();
    const res = await app.inject({ url: '/boom' });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body.code).toBe('internal_error');
    expect(res.body).not.toContain('secret internal detail');
    expect(res.body).not.toContain('at ');
    await app.close();
    await storage.drop();
  });
});
