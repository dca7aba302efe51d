import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES, PG_SERVER, freshStorage } from '../helpers/storage.ts';

/** A sample's value from Prometheus text, by its exact name and labels (null when absent). */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

describe.each(ENGINES)('operations endpoints on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('GET /health answers without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', pid: process.pid, checks: { writes: 'ok', limits: 'local' } });
    expect(res.headers['request-id']).toMatch(/^req_/);
  });

  it('GET /ready checks the database and its schema', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { database: 'ok', schema: 'ok' } });
  });

  it('GET /metrics counts requests by route and status, times them, and reports paused keys', async () => {
    const paused = await t.makeKey({ name: 'paused for metrics', mode: 'live', access: 'read' });
    await changeKeyStatus(t.storage, t.clock.fn, paused.id, 'pause');
    await t.call(t.keys.test, { method: 'GET', url: '/key' });
    await t.call(t.keys.live, { method: 'GET', url: '/key' });
    await t.call(null, { method: 'GET', url: '/key' });
    await t.call(t.keys.test, { method: 'GET', url: '/no/such/path' });

    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(sample(text, 'venue_api_http_requests_total{method="GET",route="/key",status="200"}')).toBe(2);
    expect(sample(text, 'venue_api_http_requests_total{method="GET",route="/key",status="401"}')).toBe(1);
    expect(sample(text, 'venue_api_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(sample(text, 'venue_api_http_request_duration_seconds_count{method="GET",route="/key"}')).toBe(3);
    expect(sample(text, 'venue_api_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/key"}')).toBe(3);
    expect(sample(text, 'venue_api_keys_paused')).toBe(1);
    expect(sample(text, 'venue_api_activity_rows_dropped_total')).toBe(0);
    expect(text).toContain('process_cpu_user_seconds_total');
    // Which build serves (the bundle sets version and commit; code run from src/ says unknown).
    expect(sample(text, 'venue_api_build_info{version="unknown",commit="unknown"}')).toBe(1);
    // The PostgreSQL pool's clients; SQLite has no pool.
    if (engine === 'postgres') {
      expect(sample(text, 'venue_api_db_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'venue_api_db_pool_connections{state="idle"}')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'venue_api_db_pool_connections{state="waiting"}')).toBe(0);
    } else expect(text).not.toContain('venue_api_db_pool_connections');
  });

  it('GET /metrics counts 429s by the limit that refused them', async () => {
    const key = await t.makeKey({ name: 'tight', mode: 'live', access: 'read', limits: { requests_per_minute: 1 } });
    expect((await t.call(key, { method: 'GET', url: '/key' })).statusCode).toBe(200);
    expect((await t.call(key, { method: 'GET', url: '/key' })).statusCode).toBe(429);
    expect((await t.call(key, { method: 'GET', url: '/key' })).statusCode).toBe(429);
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(sample(text, 'venue_api_rate_limited_total{limit="requests_per_minute"}')).toBe(2);
    expect(sample(text, 'venue_api_limit_store_fallbacks_total')).toBe(0);
  });

  it('the operations endpoints stay out of the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toContain('/key');
    for (const path of ['/health', '/ready', '/metrics']) expect(Object.keys(doc.paths)).not.toContain(path);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'metrics-7rT2pQ9xLm4vN8sK';
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp('sqlite', { env: { METRICS_TOKEN: token } });
  });
  afterAll(async () => t?.close());

  const metrics = (authorization?: string) =>
    t.app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });

  it('answers 401 problem without the token, or with another one', async () => {
    for (const authorization of [
      undefined,
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -1)}`,
      token,
      `Basic ${token}`,
      'Bearer',
    ]) {
      const res = await metrics(authorization);
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json()).toMatchObject({ status: 401, code: 'unauthorized', request_id: res.headers['request-id'] });
      expect(res.body).not.toContain('process_cpu_user_seconds_total');
      expect(res.body).not.toContain(token);
    }
  });

  it('answers the metrics with Authorization: Bearer <METRICS_TOKEN>', async () => {
    const res = await metrics(`Bearer ${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('venue_api_keys_paused');
    expect((await metrics(`bearer ${token}`)).statusCode).toBe(200); // the scheme is case-insensitive (RFC 9110)
  });

  it('leaves /health and /ready public', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
  });
});

describe('GET /metrics without METRICS_TOKEN', () => {
  it('is public, with or without an Authorization header', async () => {
    const t = await makeTestApp('sqlite');
    try {
      expect(t.config.metricsToken).toBeNull();
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
      const withHeader = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer anything' },
      });
      expect(withHeader.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('GET /ready with a dependency away', () => {
  it('answers 503 with a problem document when the database is gone', async () => {
    const storage = await freshStorage('postgres');
    const { app } = await buildApp(loadConfig({ BASE_URL: 'http://api.test' }), { storage, logger: false });
    try {
      expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
      const name = new URL(storage.url).pathname.slice(1);
      const admin = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
      await admin.connect();
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
      const res = await app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({
        status: 503,
        code: 'service_unavailable',
        title: 'The service is not ready',
        checks: { database: 'down', schema: 'down' },
        request_id: res.headers['request-id'],
      });
      expect(res.headers['retry-after']).toBe('5');
      expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await storage.drop();
    }
  });

  it.each(ENGINES)('answers 503 on %s when the schema lacks a migration this version needs', async (engine) => {
    const storage = await freshStorage(engine);
    const { app } = await buildApp(loadConfig({ BASE_URL: 'http://api.test' }), { storage, logger: false });
    try {
      await sql`delete from kysely_migration where name = '007-membership-counts'`.execute(storage.db);
      const res = await app.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        code: 'service_unavailable',
        checks: { database: 'ok', schema: 'down' },
        detail: expect.stringContaining('007-membership-counts'),
      });
      // A migration the database has and this version does not know (a newer version ran it) is fine.
      await sql`insert into kysely_migration (name, timestamp) values ('007-membership-counts', '2026-01-01T00:00:00.000Z'), ('999-from-a-newer-version', '2026-01-01T00:00:00.000Z')`.execute(
        storage.db,
      );
      expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await storage.drop();
    }
  });

  it('leaves Redis out of readiness: ready while it is away, degraded in /health and /metrics', async () => {
    const storage = await freshStorage('sqlite');
    const up = await buildApp(loadConfig({ BASE_URL: 'http://api.test', REDIS_URL: 'redis://127.0.0.1:6379' }), {
      storage,
      logger: false,
    });
    const down = await buildApp(loadConfig({ BASE_URL: 'http://api.test', REDIS_URL: 'redis://127.0.0.1:1' }), {
      storage,
      logger: false,
    });
    try {
      const ok = await up.app.inject({ method: 'GET', url: '/ready' });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ status: 'ready', checks: { database: 'ok', schema: 'ok' } });
      expect((await up.app.inject({ method: 'GET', url: '/health' })).json()).toEqual({
        status: 'ok',
        pid: process.pid,
        checks: { writes: 'ok', limits: 'shared' },
      });
      expect((await down.app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
      const health = await down.app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({
        status: 'degraded',
        pid: process.pid,
        checks: { writes: 'ok', limits: 'local_fallback' },
      });
      const metrics = (await down.app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(sample(metrics, 'venue_api_limit_store_fallbacks_total')).toBeGreaterThanOrEqual(1);
      expect(sample(metrics, 'venue_api_limit_store_degraded')).toBe(1);
      expect(
        sample((await up.app.inject({ method: 'GET', url: '/metrics' })).body, 'venue_api_limit_store_degraded'),
      ).toBe(0);
    } finally {
      await up.app.close();
      await down.app.close();
      await storage.drop();
    }
  });
});
