import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { OpenApiChecker } from '../helpers/openapi-check.ts';
import { ENGINES } from '../helpers/storage.ts';
import { limitFixtureRoutes } from '../limits/fixtures.ts';

/**
 * The checker every `t.call` answer goes through (test/helpers/openapi-check.ts) must be
 * able to fail: a test that passes because its checker returned silently proves nothing.
 * The checker reads only the published document, so one engine is enough.
 */
describe('the OpenAPI answer checker', () => {
  let t: TestApp;
  /** Told nothing about the app's fixture routes, unlike the one behind `t.call`. */
  let bare: OpenApiChecker;
  let withFixtures: OpenApiChecker;

  beforeAll(async () => {
    t = await makeTestApp(ENGINES[0]!, { routes: limitFixtureRoutes });
    bare = new OpenApiChecker(t.app);
    withFixtures = new OpenApiChecker(t.app, [{ method: 'POST', url: '/_limits/write' }]);
  });
  afterAll(async () => t?.close());

  /** A real answer of the app, as the arguments `check` takes. */
  async function answer(options: InjectOptions, key = t.keys.test) {
    const res = await t.app.inject({
      ...options,
      headers: { 'service-version': '2026-10-08', authorization: `Bearer ${key.secret}`, ...(options.headers ?? {}) },
    });
    const args = [
      options.method ?? 'GET',
      String(options.url),
      res.statusCode,
      res.headers['content-type'] as string | undefined,
      res.body,
      res.headers,
    ] as const;
    return { res, args, checkWith: (checker: OpenApiChecker) => checker.check(...args) };
  }

  it('passes a documented answer whose body matches its schema', async () => {
    const a = await answer({ url: '/key' });
    expect(a.res.statusCode).toBe(200);
    expect(() => a.checkWith(bare)).not.toThrow();
  });

  it('throws for a body that does not match the documented schema', async () => {
    const a = await answer({ url: '/key' });
    const body = a.res.json();
    delete body.id;
    const [method, url, status, type, , headers] = a.args;
    expect(() => bare.check(method, url, status, type, JSON.stringify(body), headers)).toThrow(
      /body does not match the OpenAPI schema/,
    );
  });

  it('throws for a status the documented operation does not list', async () => {
    const [method, url, , type, body, headers] = (await answer({ url: '/key' })).args;
    expect(() => bare.check(method, url, 201, type, body, headers)).toThrow(/status 201 is not documented/);
  });

  it('throws for an error code the operation does not list under that status', async () => {
    const a = await answer({ url: `/venues/ven_${'0'.repeat(22)}` });
    expect(a.res.statusCode).toBe(404);
    expect(() => a.checkWith(bare)).not.toThrow();
    const [method, url, status, type, , headers] = a.args;
    const body = JSON.stringify({ ...a.res.json(), code: 'conflict' });
    expect(() => bare.check(method, url, status, type, body, headers)).toThrow(
      /body does not match the OpenAPI schema/,
    );
  });

  it('throws for an answer on a path the document does not have', () => {
    const headers = { 'request-id': 'req_x', 'service-version': '2026-10-08', 'cache-control': 'no-store' };
    expect(() => bare.check('GET', '/admin/users', 200, 'application/json', '{}', headers)).toThrow(
      /does not describe the path \/admin\/users/,
    );
  });

  it('throws for a success on a documented path with a method the document does not have', () => {
    const headers = { 'request-id': 'req_x', 'service-version': '2026-10-08', 'cache-control': 'no-store' };
    expect(() => bare.check('PUT', '/venues', 200, 'application/json', '{}', headers)).toThrow(
      /does not describe PUT \/venues/,
    );
  });

  it('throws for a fixture route it was not told about, and passes it once told', async () => {
    const a = await answer({ method: 'POST', url: '/_limits/write', headers: { 'idempotency-key': 'k-1' } });
    expect(a.res.statusCode).toBe(200);
    expect(() => a.checkWith(bare)).toThrow(/does not describe the path \/_limits\/write/);
    expect(() => a.checkWith(withFixtures)).not.toThrow();
    // Only the declared method: the fixture's PATCH is still unknown to this checker.
    const patch = await answer({ method: 'PATCH', url: '/_limits/write' });
    expect(() => patch.checkWith(withFixtures)).toThrow(/does not describe/);
  });

  it("still checks a fixture route's refusals as problem documents", async () => {
    const refused = await answer({ method: 'POST', url: '/_limits/write' }); // no Idempotency-Key: 428
    expect(refused.res.statusCode).toBe(428);
    expect(() => refused.checkWith(withFixtures)).not.toThrow();
    const [method, url, status, , body, headers] = refused.args;
    expect(() => withFixtures.check(method, url, status, 'application/json', body, headers)).toThrow(
      /expected application\/problem\+json/,
    );
  });

  it('passes the hidden operational routes, which are deliberately not in the document', async () => {
    for (const url of ['/health', '/ready', '/metrics', '/openapi.json', '/docs/errors']) {
      const a = await answer({ url });
      expect(a.res.statusCode, url).toBe(200);
      expect(() => a.checkWith(bare), url).not.toThrow();
    }
  });

  it("passes the API's refusal of an unknown path (404) and of another method on a known path (405)", async () => {
    const unknown = await answer({ url: '/nothing-here' });
    expect(unknown.res.statusCode).toBe(404);
    expect(() => unknown.checkWith(bare)).not.toThrow();
    const otherMethod = await answer({ method: 'PUT', url: '/venues' });
    expect(otherMethod.res.statusCode).toBe(405);
    expect(() => otherMethod.checkWith(bare)).not.toThrow();
    const onHidden = await answer({ method: 'POST', url: '/health' });
    expect(onHidden.res.statusCode).toBe(405);
    expect(() => onHidden.checkWith(bare)).not.toThrow();
  });

  it('throws when a refusal is not a valid problem document or not the right refusal', async () => {
    const [method, url, status, type, body, headers] = (await answer({ url: '/nothing-here' })).args;
    const problem = JSON.parse(body);
    expect(() =>
      bare.check(method, url, status, type, JSON.stringify({ ...problem, request_id: undefined }), headers),
    ).toThrow(/Problem schema/);
    expect(() =>
      bare.check(method, url, status, type, JSON.stringify({ ...problem, code: 'conflict' }), headers),
    ).toThrow(/expected not_found/);
    expect(() => bare.check(method, url, status, 'text/html', body, headers)).toThrow(
      /expected application\/problem\+json/,
    );
    // A path some route has is not "unknown": a 404 there would be a lie about the API.
    expect(() => bare.check('POST', '/venues', 404, type, body, headers)).toThrow(/does not describe POST \/venues/);
    // A 405 must say, in Allow, which methods the path does have.
    const refused = await answer({ method: 'PUT', url: '/venues' });
    const [m, u, s, ty, b, h] = refused.args;
    expect(() => bare.check(m, u, s, ty, b, { ...h, allow: undefined })).toThrow(/Allow/);
  });
});
