import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toolResult } from '../../src/mcp/answers.ts';
import { VenueApi } from '../../src/mcp/calls.ts';

/**
 * The MCP server's retries, decided per tool (docs/agents.md "Retries"), against an HTTP
 * server whose answers are scripted (the API cannot be made to answer a 503 on cue): a read
 * waits out a short Retry-After, a write is sent once and its refusal goes to the agent.
 */
type Answer = { status: number; headers?: Record<string, string>; body?: string };

const problem = (status: number, code: string) =>
  JSON.stringify({
    type: `https://errors.test/${code}`,
    title: code,
    status,
    code,
    detail: `${code} here`,
    request_id: 'req_1',
  });

describe('what the MCP server retries', () => {
  let server: Server;
  let api: VenueApi;
  let script: Answer[] = [];
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const next = script.shift() ?? { status: 500, body: problem(500, 'internal_error') };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end(next.body ?? '{}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    api = new VenueApi({ apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'vw_test_x' });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    script = [];
    seen.length = 0;
  });

  it('a read waits out a 503 or 429 whose Retry-After is a few seconds, and hands on a longer one at once', async () => {
    script = [
      { status: 503, headers: { 'retry-after': '1' }, body: problem(503, 'service_unavailable') },
      { status: 429, headers: { 'retry-after': '1' }, body: problem(429, 'rate_limited') },
      { status: 200, body: '{"object":"list","data":[]}' },
    ];
    expect(await api.read('/venues')).toEqual({ kind: 'ok', body: { object: 'list', data: [] }, replayed: false });
    expect(seen).toEqual(['GET /venues', 'GET /venues', 'GET /venues']);

    seen.length = 0;
    script = [{ status: 429, headers: { 'retry-after': '40' }, body: problem(429, 'rate_limited') }];
    const limited = await api.read('/venues');
    expect(limited).toMatchObject({ kind: 'problem', error: { code: 'rate_limited', retryAfter: 40 } });
    expect(seen).toHaveLength(1);
  });

  it.each([
    ['POST', 429, 'rate_limited'],
    ['POST', 409, 'conflict'],
    ['PATCH', 412, 'precondition_failed'],
    ['DELETE', 503, 'service_unavailable'],
  ] as const)('a %s answered %i is sent once and its %s goes to the agent', async (method, status, code) => {
    script = [{ status, headers: { 'retry-after': '1' }, body: problem(status, code) }];
    const result = await api.write({ method, path: '/customers', body: { first_name: 'A' }, idempotencyKey: 'k' });
    expect(result).toMatchObject({ kind: 'problem', error: { status, code } });
    expect(seen).toEqual([`${method} /customers`]);
  });

  it('says when a write was a replay of an earlier one', async () => {
    script = [{ status: 201, headers: { 'idempotent-replayed': 'true' }, body: '{"id":"cus_1"}' }];
    const result = await api.write({ method: 'POST', path: '/customers', body: {}, idempotencyKey: 'k' });
    expect(result).toEqual({ kind: 'ok', body: { id: 'cus_1' }, replayed: true });
  });

  it("an answer that is not the API's says to check VENUE_API_URL", async () => {
    script = [{ status: 200, body: '<html>' }];
    const page = await api.read('/key');
    expect(page).toEqual({ kind: 'failed', message: 'GET /key answered with a body that is not JSON.' });
    script = [{ status: 404, body: '<html>' }];
    const missing = toolResult(await api.read('/key'));
    expect(missing.isError).toBe(true);
    expect((missing.content[0] as { text: string }).text).toMatch(/not come from the Venue API.*VENUE_API_URL/);
  });
});
