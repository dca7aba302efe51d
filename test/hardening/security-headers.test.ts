import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/**
 * Security headers: `X-Content-Type-Options: nosniff` on every answer, problems included (the
 * answers from below the API: below-the-api.test.ts); a strict Content-Security-Policy on
 * HTML; and no CORS, the API being server to server.
 */
describe.each(ENGINES)('security headers on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('every kind of answer says nosniff', async () => {
    const answers = [
      await t.call(t.keys.test, { method: 'GET', url: '/customers' }), // 200 JSON
      await t.call(null, { method: 'GET', url: '/customers' }), // 401 problem
      await t.call(t.keys.test, { method: 'GET', url: '/nowhere' }), // 404 problem
      await t.call(t.keys.test, { method: 'PUT', url: '/customers' }), // 405 problem
      await t.call(t.keys.test, { method: 'GET', url: '/customers/%E0%A4%A' }), // the router's 400
      await t.call(t.keys.test, { method: 'GET', url: '/customers?limit=1e2' }), // validation 400
      await t.call(t.keys.test, {
        method: 'POST',
        url: '/customers',
        payload: '{',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'k' },
      }), // body 400
      await t.call(null, { method: 'GET', url: '/health' }),
      await t.call(null, { method: 'GET', url: '/openapi.json' }),
      await t.call(null, { method: 'GET', url: '/docs/errors' }),
    ];
    for (const res of answers) {
      expect(res.headers['x-content-type-options'], `${res.statusCode} ${res.body.slice(0, 80)}`).toBe('nosniff');
    }
    expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 404, 405, 400, 400, 400, 200, 200, 200]);
  });

  it('HTML gets a strict Content-Security-Policy: nothing loads or runs but its own style, by hash', async () => {
    const res = await t.call(null, { method: 'GET', url: '/docs/errors' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
    expect(csp).not.toContain('unsafe');
    // The hash is that of the page's one <style>, so the page still renders as designed.
    const style = /<style>([^<]*)<\/style>/.exec(res.body)![1]!;
    const { createHash } = await import('node:crypto');
    expect(csp).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    // JSON answers need none.
    expect((await t.call(null, { method: 'GET', url: '/health' })).headers['content-security-policy']).toBeUndefined();
  });

  it('no CORS: a browser preflight or a cross-origin read gets no Access-Control-* header', async () => {
    const preflight = await t.call(null, {
      method: 'OPTIONS',
      url: '/customers',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(405);
    const read = await t.call(t.keys.test, {
      method: 'GET',
      url: '/customers',
      headers: { origin: 'https://evil.example' },
    });
    for (const res of [preflight, read]) {
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });
});
