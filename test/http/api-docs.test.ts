import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/**
 * GET /docs and its asset, in process (the browser test is test/e2e/docs.test.ts): the page,
 * its Content-Security-Policy, and Scalar's bundle served from node_modules. No engine
 * involved, so one is enough.
 */
const scalarRoot = dirname(dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')));
const standalone = readFileSync(join(scalarRoot, 'dist', 'browser', 'standalone.js'));
const { version } = JSON.parse(readFileSync(join(scalarRoot, 'package.json'), 'utf8')) as { version: string };

describe('GET /docs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(ENGINES[0]!);
  });
  afterAll(async () => t?.close());

  it('answers the page, pointed at /openapi.json, under a strict CSP and without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('data-url="/openapi.json"');
    expect(res.body).toContain(`<script src="/docs/assets/scalar-${version}.js"></script>`);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it("serves Scalar's bundle from node_modules, gzipped when asked, cacheable for good", async () => {
    const url = `/docs/assets/scalar-${version}.js`;
    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } });
    expect(gz.statusCode).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(gz.headers.vary).toBe('Accept-Encoding');
    expect(gunzipSync(gz.rawPayload).equals(standalone)).toBe(true);

    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.equals(standalone)).toBe(true);
  });

  it('answers an asset it does not have with a 404 problem document', async () => {
    for (const url of ['/docs/assets/scalar-0.0.1.js', '/docs/assets/..%2Fpackage.json']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
  });

  it('leaves /docs/errors working', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/errors' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('id="precondition_failed"');
  });
});
