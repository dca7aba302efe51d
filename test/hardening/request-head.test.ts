import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { countRows, roomy } from '../helpers/writes.ts';
import { exchange } from './raw-http.ts';

/**
 * What a request's head must be before anything
 * reads it. Query escapes spell UTF-8; Authorization comes once; a number in a query
 * parameter is a plain decimal, for every numeric parameter the API documents.
 */
interface OpenApiParameter {
  name: string;
  in: string;
  schema?: { type?: string | string[]; anyOf?: { type?: string }[] };
}

describe.each(ENGINES)('the request head on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
  });
  afterAll(async () => t?.close());

  const problem = (res: { statusCode: number; json(): { code: string } }) => ({
    status: res.statusCode,
    code: res.json().code,
  });

  it('item 5: a query string whose escapes are not UTF-8 is a 400; well-formed ones are read as sent', async () => {
    for (const query of ['email=%C3%28', 'email=%FF', 'email=%ED%A0%80', 'first_name=%E2%82', 'email=%zz']) {
      const res = await t.call(t.keys.test, { method: 'GET', url: `/customers?${query}` });
      expect(problem(res), query).toEqual({ status: 400, code: 'invalid_request' });
      expect(res.json().errors).toEqual([{ field: 'query', message: 'is not well-formed percent-encoded UTF-8' }]);
    }
    const fine = await t.call(t.keys.test, {
      method: 'GET',
      url: `/customers?email=${encodeURIComponent('zoë@example.com')}`,
    });
    expect(fine.statusCode).toBe(200);
  });

  it('item 6: two Authorization headers are a 400 (not the first silently), whatever they hold', async () => {
    const before = await countRows(t, 'customers');
    for (const pair of [
      [`Bearer ${t.keys.test.secret}`, `Bearer ${t.keys.liveRead.secret}`],
      [`Bearer ${t.keys.test.secret}`, `Bearer ${t.keys.test.secret}`],
      [`Bearer ${t.keys.test.secret}`, 'Basic Zm9vOmJhcg=='],
    ]) {
      const res = await t.call(null, {
        method: 'POST',
        url: '/customers',
        payload: { first_name: 'Twice' },
        headers: { authorization: pair as unknown as string, 'idempotency-key': 'k-twice' },
      });
      expect(problem(res)).toEqual({ status: 400, code: 'invalid_request' });
      expect(res.json().errors).toEqual([{ field: 'authorization', message: 'is sent more than once' }]);
    }
    expect(await countRows(t, 'customers')).toBe(before);
    expect((await t.call(t.keys.test, { method: 'GET', url: '/key' })).statusCode).toBe(200);
  });

  it('item 6: the same over a real socket, where Node would keep the first', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const port = (t.app.server.address() as AddressInfo).port;
      const answer = await exchange(
        port,
        `GET /key HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.keys.test.secret}\r\nAuthorization: Bearer ${t.keys.live.secret}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).code).toBe('invalid_request');
    } finally {
      await t.app.server.close();
    }
  });

  it('item 7: limit takes a plain decimal only: 0x10, 1e2, " 5", "5.0", "+5", "05 " are 400', async () => {
    for (const limit of ['0x10', '1e2', '%205', '5.0', '%2B5', '05%20', '0b11', 'Infinity', '', '5e0', '-0x1']) {
      const res = await t.call(t.keys.test, { method: 'GET', url: `/customers?limit=${limit}` });
      expect(problem(res), limit).toEqual({ status: 400, code: 'invalid_request' });
    }
    expect((await t.call(t.keys.test, { method: 'GET', url: '/customers?limit=5' })).statusCode).toBe(200);
    const zero = await t.call(t.keys.test, { method: 'GET', url: '/customers?limit=0' });
    expect(problem(zero)).toEqual({ status: 400, code: 'invalid_request' });
  });

  it('item 7: every numeric query or path parameter the API documents refuses 0x10 and 1e1', async () => {
    const doc = (await t.call(null, { method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: OpenApiParameter[] }>>;
    };
    const numeric = (p: OpenApiParameter) => {
      const types = [p.schema?.type, ...(p.schema?.anyOf ?? []).map((s) => s.type)].flat();
      return types.includes('integer') || types.includes('number');
    };
    const cases: { path: string; name: string; where: string }[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      const params = ops.get?.parameters ?? [];
      for (const p of params)
        if (numeric(p) && (p.in === 'query' || p.in === 'path')) cases.push({ path, name: p.name, where: p.in });
    }
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      for (const bad of ['0x10', '1e1']) {
        const url =
          c.where === 'query'
            ? `${c.path.replace(/\{[^}]+\}/g, 'cus_x')}?${c.name}=${bad}`
            : c.path.replace(`{${c.name}}`, bad).replace(/\{[^}]+\}/g, 'cus_x');
        const res = await t.call(t.keys.test, { method: 'GET', url });
        expect(problem(res), `${url}`).toEqual({ status: 400, code: 'invalid_request' });
      }
    }
  });
});
