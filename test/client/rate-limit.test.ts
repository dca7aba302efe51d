import { VenueApiError, VenueClient } from 'venue-api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/**
 * A 429 is retried after its Retry-After. The app listens on a real port, in this process so
 * its clock can be injected: the client's wait moves that clock on instead of sleeping, so the
 * minute window really resets between the refusal and the retry, in no time.
 */
describe.each(ENGINES)('venue-api-client and a 429 on %s', (engine) => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    // 30 s into a minute, so the window resets 30 s after the refusal.
    t = await makeTestApp(engine, { clock: Date.UTC(2026, 9, 8, 10, 0, 30) });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => t?.close());

  const clientFor = (secret: string, waits: number[], maxRetries = 2) =>
    new VenueClient({
      apiKey: secret,
      baseUrl,
      maxRetries,
      sleep: async (ms) => {
        waits.push(ms);
        t.clock.now += ms;
      },
    });

  it('waits Retry-After seconds and then succeeds', async () => {
    const key = await t.makeKey({ name: 'tiny', mode: 'test', access: 'read', limits: { requests_per_minute: 1 } });
    const waits: number[] = [];
    const venue = clientFor(key.secret, waits);
    await venue.key.retrieve();
    const again = await venue.key.retrieve();
    expect(again.limits.requests_per_minute).toBe(1);
    expect(waits).toEqual([30_000]);
  });

  it('throws VenueApiError with limit and retryAfter once its retries are spent', async () => {
    const key = await t.makeKey({ name: 'tiny 2', mode: 'test', access: 'read', limits: { requests_per_minute: 1 } });
    const waits: number[] = [];
    await clientFor(key.secret, waits).key.retrieve();
    let error: unknown;
    try {
      await clientFor(key.secret, waits, 0).key.retrieve();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(VenueApiError);
    const e = error as VenueApiError;
    expect(e).toMatchObject({ status: 429, code: 'rate_limited', limit: 'requests_per_minute' });
    expect(e.retryAfter).toBeGreaterThan(0);
    expect(e.retryAfter).toBeLessThanOrEqual(60);
    expect(e.requestId).toMatch(/^req_/);
    expect(waits).toEqual([]);
  });

  it('does not wait for a daily limit: a Retry-After over maxRetryAfterSeconds is thrown at once', async () => {
    const key = await t.makeKey({ name: 'daily', mode: 'test', access: 'read', limits: { requests_per_day: 1 } });
    const waits: number[] = [];
    const venue = clientFor(key.secret, waits);
    await venue.key.retrieve();
    let error: VenueApiError | undefined;
    try {
      await venue.key.retrieve();
    } catch (err) {
      error = err as VenueApiError;
    }
    expect(error).toMatchObject({ status: 429, limit: 'requests_per_day' });
    expect(error!.retryAfter).toBeGreaterThan(60);
    expect(waits).toEqual([]);
  });
});
