import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.ts';
import { makeTestApp, type TestApp, type TestKey } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { makeList, makeTag, roomy, roomyKey, staffActor, writesAs, type Writer } from '../helpers/writes.ts';

/**
 * Write fuzz: thousands of random bodies, headers, ids and query strings against every
 * write endpoint. Never a 5xx; every error is a problem+json with a documented code; and
 * an error writes nothing (customers, memberships and the change log stay as they were).
 */
const junk = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constant(''));
const scalar = fc.oneof(junk, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const fieldValue = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.dictionary(junk, scalar, { maxKeys: 3 }));
const FIELDS = [
  'first_name',
  'last_name',
  'nickname',
  'email',
  'phone',
  'date_of_birth',
  'company',
  'gender',
  'adult',
  'marketing_consent',
  'how_heard_about_us',
  'address',
  'tag',
  'list',
];
const customerish = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), junk), fieldValue, { maxKeys: 6 });
const plausible = fc.record(
  {
    first_name: fc.oneof(fc.constantFrom('Ada', ' ', ''), junk),
    email: fc.oneof(fc.constantFrom('a@example.com', 'A@EXAMPLE.COM', 'bad@', null), junk),
    phone: fc.oneof(fc.constantFrom('0412 345 678', '+61 2 9876 5432', '123', null), junk),
    date_of_birth: fc.oneof(fc.constantFrom('2000-02-29', '2001-02-29', '2999-01-01', null), junk),
    marketing_consent: fc.oneof(fc.boolean(), scalar),
    address: fc.oneof(fc.record({ line1: scalar, postcode: scalar }, { requiredKeys: [] }), fieldValue),
  },
  { requiredKeys: [] },
);

const valid = fc.record(
  {
    first_name: fc.constantFrom('Ada', 'Grace'),
    email: fc.constantFrom('one@example.com', 'two@example.com', null),
    phone: fc.constantFrom('0412 345 678', '+61 2 9876 5432', null),
    last_name: fc.constantFrom('L', null),
    marketing_consent: fc.constant(false),
    address: fc.record({ line1: fc.constantFrom('1 Main St', null) }),
  },
  { requiredKeys: ['first_name'] },
);

type Ids = { customer: string; tag: string; list: string };
const idLike = (ids: Ids) =>
  fc.oneof(
    fc.constantFrom(ids.customer, ids.tag, ids.list, 'cus_0000000000000000000000', 'cus_', `${ids.customer}x`),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
    fc.constant('%E0%A4%A'),
    fc.constant('x'.repeat(210)),
  );

function request(ids: Ids) {
  const id = fc.oneof(fc.constant(ids.customer), idLike(ids));
  const path = fc.oneof(
    fc.constant({ method: 'POST', url: '/customers' }),
    id.map((c) => ({ method: 'PATCH', url: `/customers/${c}` })),
    id.map((c) => ({ method: 'DELETE', url: `/customers/${c}` })),
    id.map((c) => ({ method: 'POST', url: `/customers/${c}/tags` })),
    fc
      .tuple(id, fc.oneof(fc.constant(ids.tag), idLike(ids)))
      .map(([c, x]) => ({ method: 'DELETE', url: `/customers/${c}/tags/${x}` })),
    id.map((c) => ({ method: 'POST', url: `/customers/${c}/lists` })),
    fc
      .tuple(id, fc.oneof(fc.constant(ids.list), idLike(ids)))
      .map(([c, x]) => ({ method: 'DELETE', url: `/customers/${c}/lists/${x}` })),
    fc.constant({ method: 'DELETE', url: '/test-data' }),
  );
  const query = fc.option(
    fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 12 }), { maxKeys: 2 }),
    { freq: 8 },
  );
  const body = fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 3, arbitrary: plausible },
    customerish,
    fc.record({ tag: fc.oneof(fc.constant(ids.tag), idLike(ids)) }),
    fc.record({ list: fc.oneof(fc.constant(ids.list), idLike(ids)) }),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 60 }),
    fc.constant(undefined),
  );
  // Mostly well-formed envelopes, so most requests reach the handlers and their rules.
  const usually = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: bad });
  const headers = fc
    .record(
      {
        'content-type': usually(
          fc.constantFrom('application/json', 'application/json; charset=utf-8'),
          fc.constantFrom('text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/jsonx'),
        ),
        // A few keys reused often: replays and mismatches as well as first requests.
        'idempotency-key': usually(
          fc.oneof(fc.constantFrom('k1', 'k2', 'k3'), fc.string({ minLength: 1, maxLength: 12 })),
          fc.constantFrom('', 'k'.repeat(256)),
        ),
        'if-match': fc.oneof(fc.constantFrom('"1"', '"2"', '*', 'W/"1"', '1', '"x"'), junk),
        'service-version': usually(fc.constant('2026-10-08'), fc.constantFrom('2020-01-01', 'nope')),
      },
      { requiredKeys: ['content-type', 'idempotency-key', 'service-version'] },
    )
    .chain((h) =>
      // Now and then one of them is missing.
      fc.nat(11).map((n) => Object.fromEntries(Object.entries(h).filter((_, i) => i !== n))),
    );
  const auth = usually(
    fc.constant<'rw' | 'live' | 'read' | 'none' | 'garbage'>('rw'),
    fc.constantFrom('live', 'read', 'none', 'garbage'),
  );
  return fc.record({ path, query, body, headers, auth, ip: fc.ipV4() });
}

describe.each(ENGINES)('write endpoints under fuzzing on %s', (engine) => {
  let t: TestApp;
  let staff: Writer;
  let keys: Record<'rw' | 'live' | 'read', TestKey>;
  let ids: Ids;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    staff = writesAs(t.app.writes, await staffActor(t, false));
    keys = {
      rw: await roomyKey(t),
      live: await roomyKey(t, { mode: 'live' }),
      read: await roomyKey(t, { access: 'read' }),
    };
    ids = { customer: '', tag: await makeTag(t), list: await makeList(t) };
  });
  afterAll(async () => t?.close());

  /** Everything a write could change, in one row. */
  async function dataState(): Promise<string> {
    const db = t.storage.db;
    const count = (table: 'customers' | 'customer_tags' | 'customer_lists' | 'change_log') =>
      db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
    const versions = await db
      .selectFrom('customers')
      .select([
        (eb) => eb.fn.sum<number | string>('version').as('v'),
        (eb) => eb.fn.count<number | string>('deleted_at').as('d'),
      ])
      .executeTakeFirstOrThrow();
    const counts = await Promise.all([
      count('customers'),
      count('customer_tags'),
      count('customer_lists'),
      count('change_log'),
    ]);
    return JSON.stringify([counts.map((c) => Number(c.n)), Number(versions.v), Number(versions.d)]);
  }

  it('never answers 5xx, answers every error as a documented problem, and an error writes nothing', async () => {
    const seen = new Map<number, number>();
    const runs = engine === 'sqlite' ? 2000 : 1000;
    await fc.assert(
      fc.asyncProperty(
        fc.constant(null).chain(() => request(ids)),
        async ({ path, query, body, headers, auth, ip }) => {
          if (!ids.customer) ids.customer = (await staff.create({ first_name: 'Target' })).record.id;
          const url = path.url.replace('undefined', ids.customer) + (query ? `?${new URLSearchParams(query)}` : '');
          const authorization =
            auth === 'none'
              ? {}
              : { authorization: auth === 'garbage' ? 'Bearer vw_test_nope' : `Bearer ${keys[auth].secret}` };
          const before = await dataState();
          const res = await t.app.inject({
            method: path.method as 'POST',
            url,
            remoteAddress: ip,
            headers: { ...headers, ...authorization },
            ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
          });
          seen.set(res.statusCode, (seen.get(res.statusCode) ?? 0) + 1);
          if (path.method === 'DELETE' && res.statusCode === 200 && url.startsWith(`/customers/${ids.customer}?`))
            ids.customer = '';
          if (path.method === 'DELETE' && res.statusCode === 200 && url.split('?')[0] === `/customers/${ids.customer}`)
            ids.customer = '';
          expect(res.statusCode, res.body).toBeLessThan(500);
          if (res.statusCode >= 400) {
            expect(res.headers['content-type']).toContain('application/problem+json');
            const problem = res.json();
            expect(ERROR_CODES).toContain(problem.code);
            expect(problem.status).toBe(res.statusCode);
            expect(problem.request_id).toBe(res.headers['request-id']);
            expect(await dataState(), `${path.method} ${url} -> ${res.statusCode} wrote something`).toBe(before);
          }
        },
      ),
      { numRuns: runs },
    );
    console.info(`fuzz on ${engine}: statuses seen ${JSON.stringify(Object.fromEntries(seen))}`);
    expect([...seen.keys()].some((s) => s < 300)).toBe(true);
  }, 180_000);
});
