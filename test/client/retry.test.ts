import { quoteIfMatch, VenueApiError, VenueClient, VenueConnectionError, SERVICE_VERSION } from 'venue-api-client';
import { describe, expect, it } from 'vitest';

/**
 * The client's retry rules, each answer scripted (the server cannot be made to answer a
 * 500 or an in-flight 409 on cue): what is retried, after how long, with which headers.
 * The same rules against the real server are in client.test.ts and rate-limit.test.ts.
 */
type Scripted = { status: number; headers?: Record<string, string>; body?: unknown } | Error;

function scripted(answers: Scripted[]) {
  const sent: { method: string; url: string; headers: Headers; body: string | undefined }[] = [];
  const waits: number[] = [];
  const client = (maxRetries = 2) =>
    new VenueClient({
      apiKey: 'vw_test_key',
      baseUrl: 'https://api.example.test/v',
      maxRetries,
      sleep: async (ms) => {
        waits.push(ms);
      },
      fetch: async (input, init) => {
        sent.push({
          method: init?.method ?? 'GET',
          url: String(input),
          headers: new Headers(init?.headers),
          body: init?.body as string | undefined,
        });
        const next = answers.shift();
        if (!next) throw new Error('no scripted answer left');
        if (next instanceof Error) throw next;
        const problem = next.status >= 400;
        return new Response(JSON.stringify(next.body ?? (problem ? { code: 'x', status: next.status } : {})), {
          status: next.status,
          headers: {
            'content-type': problem ? 'application/problem+json' : 'application/json',
            'request-id': 'req_scripted',
            ...next.headers,
          },
        });
      },
    });
  return { sent, waits, client };
}

const customer = { id: 'cus_1', object: 'customer', first_name: 'Ada' };
const conflictStillRunning = {
  status: 409,
  headers: { 'retry-after': '1' },
  body: { code: 'conflict', status: 409, detail: 'still running', request_id: 'req_a', title: 'Conflict', type: 't' },
};

describe('venue-api-client retries', () => {
  it('sends the key, the pinned Service-Version and, on a POST, one Idempotency-Key for every attempt', async () => {
    const s = scripted([new TypeError('fetch failed'), { status: 503 }, { status: 201, body: customer }]);
    expect(await s.client().customers.create({ first_name: 'Ada' })).toEqual(customer);
    expect(s.sent).toHaveLength(3);
    const keys = s.sent.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    for (const r of s.sent) {
      expect(r.url).toBe('https://api.example.test/v/customers');
      expect(r.headers.get('authorization')).toBe('Bearer vw_test_key');
      expect(r.headers.get('service-version')).toBe(SERVICE_VERSION);
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(r.body!)).toEqual({ first_name: 'Ada' });
    }
    // Exponential backoff with jitter: about 0.5 s then about 1 s, each between half and all of it.
    expect(s.waits).toHaveLength(2);
    expect(s.waits[0]).toBeGreaterThanOrEqual(250);
    expect(s.waits[0]).toBeLessThanOrEqual(500);
    expect(s.waits[1]).toBeGreaterThanOrEqual(500);
    expect(s.waits[1]).toBeLessThanOrEqual(1000);
  });

  it('a new call gets a new Idempotency-Key; one given is sent as it is', async () => {
    const s = scripted([
      { status: 201, body: customer },
      { status: 201, body: customer },
      { status: 201, body: customer },
    ]);
    const venue = s.client();
    await venue.customers.create({ first_name: 'A' });
    await venue.customers.create({ first_name: 'A' });
    await venue.customers.create({ first_name: 'A' }, { idempotencyKey: 'mine' });
    const keys = s.sent.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('mine');
  });

  it('retries a 409 that carries Retry-After after it, and throws a 409 without one at once', async () => {
    const s = scripted([conflictStillRunning, { status: 201, body: customer }]);
    expect(await s.client().customers.create({ first_name: 'A' }, { idempotencyKey: 'k' })).toEqual(customer);
    expect(s.waits).toEqual([1000]);

    const taken = scripted([{ status: 409, body: { code: 'conflict', status: 409 } }]);
    await expect(taken.client().customers.create({ first_name: 'A' })).rejects.toMatchObject({
      status: 409,
      code: 'conflict',
      retryAfter: null,
    });
    expect(taken.sent).toHaveLength(1);
  });

  it('does not replay a PATCH or DELETE that may have been applied (5xx, no answer)', async () => {
    const s = scripted([{ status: 502 }]);
    await expect(s.client().customers.update('cus_1', { nickname: 'A' })).rejects.toBeInstanceOf(VenueApiError);
    expect(s.sent).toHaveLength(1);
    const d = scripted([new TypeError('socket hang up')]);
    await expect(d.client().customers.delete('cus_1')).rejects.toBeInstanceOf(VenueConnectionError);
    expect(d.sent).toHaveLength(1);
  });

  it('gives up after maxRetries with the last error', async () => {
    const s = scripted([
      { status: 500 },
      { status: 500 },
      { status: 500, body: { code: 'internal_error', status: 500 } },
    ]);
    await expect(s.client().venues.retrieve('ven_1')).rejects.toMatchObject({ status: 500, code: 'internal_error' });
    expect(s.sent).toHaveLength(3);
  });

  it('waits a 503 out for its Retry-After, and throws one that asks longer than maxRetryAfterSeconds at once', async () => {
    const unavailable = (seconds: string) => ({
      status: 503,
      headers: { 'retry-after': seconds },
      body: { code: 'service_unavailable', status: 503 },
    });
    const s = scripted([unavailable('2'), { status: 200, body: customer }]);
    expect(await s.client().customers.retrieve('cus_1')).toEqual(customer);
    expect(s.waits).toEqual([2000]);

    const long = scripted([unavailable('61')]);
    await expect(long.client().customers.retrieve('cus_1')).rejects.toMatchObject({ status: 503, retryAfter: 61 });
    expect(long.sent).toHaveLength(1);
  });

  it("maxRetries on one call stands in for the client's: 0 sends it once and throws what came", async () => {
    const s = scripted([{ status: 429, headers: { 'retry-after': '1' } }, new TypeError('fetch failed')]);
    const venue = s.client();
    await expect(venue.customers.create({ first_name: 'A' }, { maxRetries: 0 })).rejects.toMatchObject({
      status: 429,
      retryAfter: 1,
    });
    await expect(venue.venues.list({}, { maxRetries: 0 })).rejects.toBeInstanceOf(VenueConnectionError);
    expect(s.sent).toHaveLength(2);
    expect(s.waits).toEqual([]);
  });

  it('request() calls any path with the same headers and answers its status, headers and body', async () => {
    const s = scripted([{ status: 201, headers: { 'idempotent-replayed': 'true' }, body: customer }]);
    const res = await s.client().request({
      method: 'POST',
      path: '/customers',
      body: { first_name: 'Ada' },
      idempotencyKey: 'mine',
      ifMatch: '*',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(res.body).toEqual(customer);
    const sent = s.sent[0]!;
    expect(sent.url).toBe('https://api.example.test/v/customers');
    expect(sent.headers.get('service-version')).toBe(SERVICE_VERSION);
    expect(sent.headers.get('idempotency-key')).toBe('mine');
    expect(sent.headers.get('if-match')).toBe('*');
  });

  it('quotes a bare version for If-Match and passes an ETag through', async () => {
    expect(quoteIfMatch(4)).toBe('"4"');
    expect(quoteIfMatch('4')).toBe('"4"');
    expect(quoteIfMatch('"4"')).toBe('"4"');
    expect(quoteIfMatch('W/"4"')).toBe('W/"4"');
    expect(quoteIfMatch('*')).toBe('*');
    const s = scripted([{ status: 200, body: customer }]);
    await s.client().customers.update('cus_1', { nickname: 'A' }, { ifMatch: '7' });
    expect(s.sent[0]!.headers.get('if-match')).toBe('"7"');
    expect(s.sent[0]!.method).toBe('PATCH');
    expect(s.sent[0]!.headers.get('idempotency-key')).toBeNull();
  });

  it('a list is sent once when awaited, with its filters, and id segments are encoded', async () => {
    const page = { object: 'list', data: [], has_more: false };
    const s = scripted([
      { status: 200, body: page },
      { status: 200, body: customer },
    ]);
    const venue = s.client();
    const call = venue.bookings.list({ limit: 10, venue: 'ven_1', number: undefined });
    expect(await call).toEqual(page);
    expect(await call).toEqual(page);
    await venue.customers.retrieve('cus_1/../x');
    expect(s.sent.map((r) => r.url)).toEqual([
      'https://api.example.test/v/bookings?limit=10&venue=ven_1',
      'https://api.example.test/v/customers/cus_1%2F..%2Fx',
    ]);
  });
});
