import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/storage.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';

describe.each(ENGINES)('GET /key on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('describes a test read-write key', async () => {
    const res = await t.call(t.keys.test, { method: 'GET', url: '/key' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      id: t.keys.test.id,
      object: 'api_key',
      kind: 'standard',
      access: 'read_write',
      mode: 'test',
      expires_at: null,
      contacts_masked: false,
      limits: { requests_per_minute: 300, page_size_max: 100, page_size_default: 25 },
    });
    expect(body.can_write).toContain('test_data.delete');
    expect(res.headers['request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/);
    expect(res.headers['service-version']).toBe('2026-10-08');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('a read key has no writes', async () => {
    const res = await t.call(t.keys.liveRead, { method: 'GET', url: '/key' });
    expect(res.json()).toMatchObject({ access: 'read', mode: 'live', can_write: [] });
  });

  it('a missing key is a 401 problem with WWW-Authenticate', async () => {
    const res = await t.call(null, { method: 'GET', url: '/key' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    const body = res.json();
    expect(body).toMatchObject({ status: 401, code: 'unauthorized', type: 'http://api.test/docs/errors#unauthorized' });
    expect(body.request_id).toBe(res.headers['request-id']);
  });
});
