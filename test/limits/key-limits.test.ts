import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import type { TestApp } from '../helpers/app.ts';
import { CASES, limitFixtureRoutes, nextDay, nextMinute, read, removal, useStoreApp, write } from './fixtures.ts';

function expectHeaders(res: LightMyRequestResponse, q: number, r: number, t: number) {
  expect(res.headers['ratelimit-policy']).toBe(`"default";q=${q};w=60`);
  expect(res.headers['ratelimit']).toBe(`"default";r=${r};t=${t}`);
}

function expectLimited(res: LightMyRequestResponse, limit: string, detail: string, retryAfter: number) {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  expect(body).toMatchObject({ status: 429, code: 'rate_limited', limit });
  expect(body.detail).toContain(detail);
  expect(res.headers['retry-after']).toBe(String(retryAfter));
}

describe.each(CASES)('key and workspace limits on %s, %s store', (engine, store) => {
  let t: TestApp;
  useStoreApp(engine, store, (app) => (t = app), { routes: limitFixtureRoutes });

  it('requests_per_minute: the 4th request of a minute is 429; the next minute admits again', async () => {
    const key = await t.makeKey({ limits: { requests_per_minute: 3 } });
    for (let i = 1; i <= 3; i++) {
      const res = await read(t, key);
      expect(res.statusCode).toBe(200);
      expectHeaders(res, 3, 3 - i, 59);
    }
    const refused = await read(t, key);
    expectLimited(refused, 'requests_per_minute', '3 requests a minute per key', 59);
    expectHeaders(refused, 3, 0, 59);
    t.clock.now += 59_000; // the first instant of the next minute
    const again = await read(t, key);
    expect(again.statusCode).toBe(200);
    expectHeaders(again, 3, 2, 60);
  });

  it('requests_per_day: the 4th request of a UTC day is 429 until 00:00 UTC', async () => {
    const key = await t.makeKey({ limits: { requests_per_day: 3 } });
    for (let i = 0; i < 3; i++) expect((await read(t, key)).statusCode).toBe(200);
    const toMidnight = Math.ceil((nextDay(t.clock.now) - 1_000 - t.clock.now) / 1000);
    const refused = await read(t, key);
    expectLimited(refused, 'requests_per_day', '3 requests a day per key', toMidnight);
    expectHeaders(refused, 300, 297, 59); // the headers describe the per-minute allowance
    t.clock.now = nextMinute(t.clock.now);
    expectLimited(await read(t, key), 'requests_per_day', '3 requests a day per key', toMidnight - 60);
    t.clock.now = nextDay(t.clock.now) - 1_000; // 00:00:00.000 UTC
    expect((await read(t, key)).statusCode).toBe(200);
  });

  it('writes_per_minute: POST and PATCH are writes; reads go on; the next minute admits again', async () => {
    const key = await t.makeKey({ limits: { writes_per_minute: 2 } });
    expect((await write(t, key, 'POST')).statusCode).toBe(200);
    expect((await write(t, key, 'PATCH')).statusCode).toBe(200);
    const refused = await write(t, key, 'POST');
    expectLimited(refused, 'writes_per_minute', '2 writes a minute per key', 59);
    expectHeaders(refused, 300, 298, 59);
    expect((await read(t, key)).statusCode).toBe(200);
    t.clock.now = nextMinute(t.clock.now);
    expect((await write(t, key, 'PATCH')).statusCode).toBe(200);
  });

  it('writes_per_day: the 3rd write of the day is 429 until the next UTC day', async () => {
    const key = await t.makeKey({ limits: { writes_per_day: 2 } });
    expect((await write(t, key)).statusCode).toBe(200);
    t.clock.now = nextMinute(t.clock.now);
    expect((await write(t, key)).statusCode).toBe(200);
    t.clock.now = nextMinute(t.clock.now);
    expectLimited(
      await write(t, key),
      'writes_per_day',
      '2 writes a day per key',
      Math.ceil((nextDay(t.clock.now) - 1_000 - t.clock.now) / 1000),
    );
    t.clock.now = nextDay(t.clock.now);
    expect((await write(t, key)).statusCode).toBe(200);
  });

  it('removals_per_day: every DELETE is a removal and not a write', async () => {
    const key = await t.makeKey({ limits: { removals_per_day: 2, writes_per_day: 1 } });
    expect((await removal(t, key)).statusCode).toBe(200);
    expect((await removal(t, key)).statusCode).toBe(200);
    expect((await write(t, key)).statusCode).toBe(200); // the removals used no write budget
    expectLimited(
      await removal(t, key),
      'removals_per_day',
      '2 removals a day per key',
      Math.ceil((nextDay(t.clock.now) - 1_000 - t.clock.now) / 1000),
    );
    t.clock.now = nextDay(t.clock.now);
    expect((await removal(t, key)).statusCode).toBe(200);
  });

  it('the workspace requests_per_minute holds across all its keys', async () => {
    const ws = await createWorkspace(t.storage, t.clock.fn, { name: 'Small', requestsPerMinute: 3 });
    const a = await t.makeKey({ workspaceId: ws.id });
    const b = await t.makeKey({ workspaceId: ws.id });
    expect((await read(t, a)).statusCode).toBe(200);
    expect((await read(t, b)).statusCode).toBe(200);
    expect((await read(t, a)).statusCode).toBe(200);
    const refused = await read(t, b);
    expectLimited(refused, 'workspace_requests_per_minute', '3 requests a minute per workspace', 59);
    expectHeaders(refused, 300, 299, 59); // b's own allowance: the refused request took nothing
    expectLimited(await read(t, a), 'workspace_requests_per_minute', 'per workspace', 59);
    t.clock.now = nextMinute(t.clock.now);
    expect((await read(t, b)).statusCode).toBe(200);
  });

  it('a request refused by the write limit consumes nothing from the request, daily or workspace counts', async () => {
    const ws = await createWorkspace(t.storage, t.clock.fn, { name: 'Five a minute', requestsPerMinute: 5 });
    const key = await t.makeKey({
      workspaceId: ws.id,
      limits: { requests_per_minute: 100, requests_per_day: 6, writes_per_minute: 1 },
    });
    expect((await write(t, key)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await write(t, key)).json().limit).toBe('writes_per_minute');
    for (let r = 98; r >= 95; r--) {
      const res = await read(t, key);
      expect(res.statusCode).toBe(200);
      expectHeaders(res, 100, r, 59);
    }
    expect((await read(t, key)).json().limit).toBe('workspace_requests_per_minute');
    t.clock.now = nextMinute(t.clock.now);
    expect((await read(t, key)).statusCode).toBe(200);
    expect((await read(t, key)).json().limit).toBe('requests_per_day');
  });

  it('a request refused by the per-minute limit consumes nothing from the write budget', async () => {
    const key = await t.makeKey({ limits: { requests_per_minute: 2, writes_per_day: 2 } });
    expect((await read(t, key)).statusCode).toBe(200);
    expect((await read(t, key)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await write(t, key)).json().limit).toBe('requests_per_minute');
    t.clock.now = nextMinute(t.clock.now);
    expect((await write(t, key)).statusCode).toBe(200);
    expect((await write(t, key)).statusCode).toBe(200);
    expect((await write(t, key)).json().limit).toBe('writes_per_day');
  });

  it('error answers of an authenticated request carry the headers and count', async () => {
    const key = await t.makeKey({ access: 'read', limits: { requests_per_minute: 4 } });
    const forbidden = await write(t, key);
    expect(forbidden.statusCode).toBe(403);
    expectHeaders(forbidden, 4, 3, 59);
    const missing = await t.call(key, { method: 'GET', url: `/venues/ven_${'0'.repeat(22)}` });
    expect(missing.statusCode).toBe(404);
    expectHeaders(missing, 4, 2, 59);
    const unauthenticated = await t.call(null, { method: 'GET', url: '/key' });
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers['ratelimit']).toBeUndefined();
  });
});
