import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import {
  insertBooking,
  insertCustomer,
  insertGiftCard,
  insertOrder,
  insertTicket,
  insertVenue,
} from '../helpers/fixtures.ts';
import { ENGINES } from '../helpers/storage.ts';

/**
 * The read surface under random paths, ids, query strings, methods and headers: never a
 * 5xx, and every refusal a problem document with a documented code and the answer's own
 * request id (guide: "no request may crash the process or answer 500 for something the
 * client did"). The write endpoints have their own fuzz test (test/customers).
 */
const COLLECTIONS = [
  'venues',
  'customers',
  'tags',
  'lists',
  'bookings',
  'orders',
  'activities',
  'packages',
  'events',
  'tickets',
  'gift-cards',
];
const PARAMS = [
  'limit',
  'starting_after',
  'updated_since',
  'email',
  'venue',
  'number',
  'scheduled_from',
  'scheduled_to',
  'customer',
  'booking',
  'event',
  'order',
];
const junk = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('', '%00', '\u0000', '\ud800'),
);

function request(known: string[]) {
  const id = fc.oneof(
    fc.constantFrom(...known),
    fc.constantFrom('cus_', 'ven_' + 'a'.repeat(22), 'x'.repeat(250), '%E0%A4%A', '..', '%2F'),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
  );
  const value = fc.oneof(
    junk,
    fc.constantFrom(...known),
    fc.constantFrom(
      '0',
      '101',
      '-1',
      '2.5',
      '1e1',
      '2026-02-30T00:00:00Z',
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:00+10:00',
    ),
    fc.integer().map(String),
  );
  const query = fc.dictionary(
    fc.oneof(fc.constantFrom(...PARAMS), junk),
    fc.oneof(value, fc.array(value, { maxLength: 2 })),
    { maxKeys: 3 },
  );
  const path = fc.oneof(
    fc.constantFrom(...COLLECTIONS).map((c) => `/${c}`),
    fc.tuple(fc.constantFrom(...COLLECTIONS), id).map(([c, i]) => `/${c}/${i}`),
    fc.constantFrom('/key', '/', '/customers/', '//venues', '/venues/a/b', '/openapi.json'),
  );
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constant('GET') },
    fc.constantFrom('HEAD', 'OPTIONS', 'PUT', 'PATCH', 'DELETE', 'POST'),
  );
  const key = fc.constantFrom<'test' | 'live' | 'liveRead' | 'masked' | 'restricted' | 'none' | 'garbage'>(
    'test',
    'live',
    'liveRead',
    'masked',
    'restricted',
    'none',
    'garbage',
  );
  const headers = fc.record(
    {
      'service-version': fc.oneof({ weight: 6, arbitrary: fc.constant('2026-10-08') }, junk),
      'if-none-match': fc.oneof(fc.constantFrom('"1"', '*', 'W/"x"'), junk),
      'content-type': fc.constantFrom('application/json', 'text/plain'),
    },
    { requiredKeys: [] },
  );
  return fc.record({ path, query, method, key, headers });
}

describe.each(ENGINES)('read endpoints under fuzzing on %s', (engine) => {
  let t: TestApp;
  let keys: Record<string, TestKey>;
  let known: string[];
  beforeAll(async () => {
    t = await makeTestApp(engine);
    const live = { workspaceId: t.workspaceId, livemode: true };
    const venue = await insertVenue(t.storage.db, live);
    const customer = await insertCustomer(t.storage.db, live);
    const booking = await insertBooking(t.storage.db, live, { venue: venue.id });
    const order = await insertOrder(t.storage.db, live, { booking: booking.id, customer: customer.id });
    const ticket = await insertTicket(t.storage.db, live, { order: order.id, customer: customer.id });
    const card = await insertGiftCard(t.storage.db, live, { holder: customer.id });
    known = [venue.id, customer.id, booking.id, order.id, ticket.id, card.id];
    keys = {
      ...t.keys,
      masked: await t.makeKey({ name: 'masked', mode: 'live', access: 'read', contactsMasked: true }),
      restricted: await t.makeKey({
        name: 'restricted',
        mode: 'live',
        access: 'read',
        restricted: { canRead: ['venues'], canWrite: [] },
      }),
    };
  });
  afterAll(async () => t?.close());

  it('never answers 5xx, and every refusal is a documented problem', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      // Random addresses: one address's refused keys must not turn every later request
      // into a 429 and hide the rest of the surface.
      fc.asyncProperty(request(known), fc.ipV4(), async ({ path, query, method, key, headers }, ip) => {
        const qs = new URLSearchParams();
        for (const [name, v] of Object.entries(query)) for (const one of [v].flat()) qs.append(name, one);
        const url = path + (qs.size > 0 ? `?${qs}` : '');
        const authorization =
          key === 'none'
            ? {}
            : { authorization: key === 'garbage' ? 'Bearer vw_live_nope' : `Bearer ${keys[key]!.secret}` };
        const res = await t.app.inject({
          method: method as 'GET',
          url,
          remoteAddress: ip,
          headers: { ...headers, ...authorization },
          ...(method === 'POST' || method === 'PUT' || method === 'PATCH' ? { payload: '{}' } : {}),
        });
        seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
        expect(res.statusCode, `${method} ${url}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (res.statusCode >= 400 && method !== 'HEAD') {
          expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
          const body = res.json();
          expect(ERROR_CODES).toContain(body.code);
          expect(body.status).toBe(res.statusCode);
          expect(body.request_id).toBe(res.headers['request-id']);
        }
        // A masked key never sees a customer's (or an order's billing) email in full.
        // (A venue's own business address is not a customer contact.)
        if (key === 'masked' && res.statusCode === 200 && method === 'GET' && /^\/(customers|orders)/.test(path)) {
          expect(res.body).not.toMatch(/"email":"[^"*]{2,}@/);
        }
      }),
      { numRuns: engine === 'sqlite' ? 1500 : 800 },
    );
    // The fuzzing reached the records as well as the refusals.
    expect(seen.get(200) ?? 0).toBeGreaterThan(50);
    expect(seen.get(404) ?? 0).toBeGreaterThan(10);
    expect(seen.get(400) ?? 0).toBeGreaterThan(10);
  });
});
