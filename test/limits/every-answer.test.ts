import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeKeyStatus } from '../../src/resources/keys/key.service.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { START } from './fixtures.ts';

/**
 * SPEC "Limits" 2, DECISIONS "Limits": every answer to a request carrying a valid key has
 * RateLimit-Policy and RateLimit, whatever its status and whichever check refused it. An
 * answer to a request the limit check counted tells what is left after it; a paused key's
 * 403 and a 429 count nothing and tell the figures as they stand.
 */
const POLICY = /^"default";q=\d+;w=60$/;
const LEFT = /^"default";r=\d+;t=\d+$/;

interface Expected {
  status: number;
  code?: string;
  /** false for the answers that count nothing: a 429, a paused key's. */
  counts?: boolean;
}

const ada = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' };
const post = (payload: unknown, idempotencyKey?: string, headers: Record<string, string> = {}): InjectOptions => ({
  method: 'POST',
  url: '/customers',
  payload: payload as InjectOptions['payload'],
  headers: { ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}), ...headers },
});

describe.each(ENGINES)('RateLimit headers on every answer to a valid key on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    // One second into a minute: every answer's window resets in 59 seconds.
    t = await makeTestApp(engine, { clock: START + 1_000 });
  });
  afterAll(async () => t?.close());

  /**
   * Sends a key's requests and checks each answer's status, code and both headers' exact
   * shape and figures: q its per-minute limit, r one less after each request counted.
   */
  function caller(key: TestKey, perMinute: number) {
    let left = perMinute;
    return async (request: InjectOptions, expected: Expected): Promise<LightMyRequestResponse> => {
      const res = await t.call(key, request);
      const what = `${request.method ?? 'GET'} ${request.url} (${expected.code ?? expected.status})`;
      expect(res.statusCode, what).toBe(expected.status);
      if (expected.code) expect(res.json().code, what).toBe(expected.code);
      if (expected.counts !== false) left -= 1;
      expect(res.headers['ratelimit-policy'], what).toMatch(POLICY);
      expect(res.headers['ratelimit-policy'], what).toBe(`"default";q=${perMinute};w=60`);
      expect(res.headers.ratelimit, what).toMatch(LEFT);
      expect(res.headers.ratelimit, what).toBe(`"default";r=${left};t=59`);
      return res;
    };
  }

  it('200, 201, 304, and 400 to 428 from every check: both headers, the figures after counting', async () => {
    const send = caller(await t.makeKey({ name: 'every status', limits: { requests_per_minute: 100 } }), 100);
    await send({ url: '/key' }, { status: 200 });
    const created = await send(post(ada, 'create-ada'), { status: 201 });
    const id = created.json().id as string;
    await send(
      { url: `/customers/${id}`, headers: { 'if-none-match': String(created.headers.etag) } },
      { status: 304 },
    );
    // 400 from the version check, from schema validation, and from the request-head check.
    await send(
      { url: '/key', headers: { 'service-version': '2020-01-01' } },
      { status: 400, code: 'unsupported_version' },
    );
    await send({ url: '/venues?limit=0' }, { status: 400, code: 'invalid_request' });
    await send(post({ ...ada, colour: 'blue' }, 'unknown-field'), { status: 400, code: 'invalid_request' });
    await send({ url: '/customers?email=%FF' }, { status: 400, code: 'invalid_request' });
    await send({ url: `/customers/cus_${'0'.repeat(22)}` }, { status: 404, code: 'not_found' });
    await send({ url: '/nothing-here' }, { status: 404, code: 'not_found' });
    await send({ method: 'PUT', url: '/venues' }, { status: 405, code: 'method_not_allowed' });
    await send(post(ada, 'ada-again'), { status: 409, code: 'conflict' });
    await send(
      { method: 'PATCH', url: `/customers/${id}`, payload: { nickname: 'Countess' }, headers: { 'if-match': '"999"' } },
      { status: 412, code: 'precondition_failed' },
    );
    await send(post({ ...ada, notes: 'x'.repeat(70 * 1024) }, 'too-large'), {
      status: 413,
      code: 'payload_too_large',
    });
    await send(post('first_name=Ada', 'form', { 'content-type': 'application/x-www-form-urlencoded' }), {
      status: 415,
      code: 'unsupported_media_type',
    });
    await send(post({ ...ada, email: 'someone@example.com' }, 'create-ada'), {
      status: 422,
      code: 'idempotency_mismatch',
    });
    await send(post(ada), { status: 428, code: 'precondition_required' });
  });

  it('403 forbidden counts and carries them', async () => {
    const send = caller(await t.makeKey({ name: 'reader', access: 'read', limits: { requests_per_minute: 7 } }), 7);
    await send(post(ada, 'read-only'), { status: 403, code: 'forbidden' });
    await send({ url: '/key' }, { status: 200 });
  });

  it("403 key_paused, and a paused key's 404, carry the figures as they stand without counting", async () => {
    const key = await t.makeKey({ name: 'to pause', limits: { requests_per_minute: 9 } });
    const send = caller(key, 9);
    await send({ url: '/key' }, { status: 200 });
    await changeKeyStatus(t.storage, t.clock.fn, key.id, 'pause', 'test');
    await t.keysCache.refresh();
    await send({ url: '/key' }, { status: 403, code: 'key_paused', counts: false });
    await send(post(ada, 'paused'), { status: 403, code: 'key_paused', counts: false });
    await send({ url: '/nothing-here' }, { status: 404, code: 'not_found', counts: false });
  });

  it('429 carries them with nothing left, and counts nothing', async () => {
    const send = caller(await t.makeKey({ name: 'tiny', limits: { requests_per_minute: 2 } }), 2);
    await send({ url: '/key' }, { status: 200 });
    await send({ url: '/key' }, { status: 200 });
    await send({ url: '/key' }, { status: 429, code: 'rate_limited', counts: false });
    await send(post(ada, 'over'), { status: 429, code: 'rate_limited', counts: false });
  });

  it('a request without a valid key has neither header: there is no allowance to describe', async () => {
    const revoked = await t.makeKey({ name: 'gone' });
    await changeKeyStatus(t.storage, t.clock.fn, revoked.id, 'revoke');
    await t.keysCache.refresh();
    const bad: TestKey = { id: 'key_none', secret: `vw_test_${'a'.repeat(32)}000000` };
    for (const key of [null, bad, revoked]) {
      for (const request of [{ url: '/key' }, { url: '/key', headers: { 'service-version': '2020-01-01' } }]) {
        const res = await t.call(key, request);
        expect(res.statusCode).toBe(401);
        expect(res.json().code).toBe('unauthorized');
        expect(res.headers['ratelimit-policy']).toBeUndefined();
        expect(res.headers.ratelimit).toBeUndefined();
      }
    }
  });
});
