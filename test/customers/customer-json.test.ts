import { Type } from '@sinclair/typebox';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerTable } from '../../src/db/tables/customer.ts';
import { toInstant } from '../../src/lib/time.ts';
import { customerJson, pageCustomersJson, readCustomerJson } from '../../src/resources/customers/customer-json.repo.ts';
import { isAdultOn } from '../../src/resources/customers/customer-record.model.ts';
import { Customer } from '../../src/resources/customers/customer.schema.ts';

/** The rule by calendar arithmetic, as a test oracle: the 18th birthday (29 Feb rolls to 1 Mar) is today or earlier. */
function eighteenByCalendar(dateOfBirth: string, now: number): boolean {
  const today = new Date(now);
  const [y, m, d] = dateOfBirth.split('-').map(Number) as [number, number, number];
  return Date.UTC(y + 18, m - 1, d) <= Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
}
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The database writes a customer's JSON from the Customer schema (customer-json.repo.ts,
 * db/json-record.ts). It must be, byte for byte, JSON.stringify of the record the stored
 * values make, keys in the schema's order: every kind of value, text that needs escaping,
 * memberships in their order, and dates of birth around the 18th birthday (29 February
 * included). It is the customer's one writer: reads, write answers and webhook events.
 */
const WS = 'wsp_0000000000000000000000';
const NOW = Date.UTC(2026, 1, 28, 23, 59, 59, 999); // 28 Feb 2026, a year without 29 Feb

const id = (prefix: string, n: number) => `${prefix}_${String(n).padStart(22, '0')}`;

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom(
    '"quoted"',
    'back\\slash',
    'line\nbreak\ttab\r',
    '\u0001\u001f',
    '\u2028\u2029',
    'émoji 🎉',
    '</script>',
  ),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const instant = fc.integer({ min: 0, max: 4_102_444_800_000 }); // to 2100
const birthday = fc.constantFrom(
  '2008-02-28',
  '2008-02-29',
  '2008-03-01',
  '2007-02-28',
  '2008-02-27',
  '1990-12-31',
  '2020-01-01',
  '2000-02-29',
);

const customer = fc.record({
  first_name: text,
  last_name: maybe(text),
  nickname: maybe(text),
  email: maybe(fc.emailAddress()),
  phone: maybe(fc.constantFrom('+61412345678', '+14155550123', '+442071838750')),
  date_of_birth: maybe(birthday),
  company: maybe(text),
  address_line1: maybe(text),
  address_line2: maybe(text),
  address_suburb: maybe(text),
  address_state: maybe(text),
  address_postcode: maybe(text),
  address_country: maybe(fc.constantFrom('AU', 'NZ', 'GB')),
  adult: maybe(fc.constantFrom(0, 1)),
  marketing_consent: fc.constantFrom(0, 1),
  member: fc.constantFrom(0, 1),
  member_tier: maybe(text),
  version: fc.integer({ min: 1, max: 1_000_000 }),
  created_at: instant,
  updated_at: instant,
  tags: fc.uniqueArray(fc.record({ tag: fc.integer({ min: 0, max: 3 }), added_at: maybe(instant) }), {
    selector: (t) => t.tag,
    maxLength: 4,
  }),
  lists: fc.uniqueArray(
    fc.record({
      list: fc.integer({ min: 0, max: 2 }),
      status: fc.constantFrom('active', 'unsubscribed') as fc.Arbitrary<'active' | 'unsubscribed'>,
      added_at: maybe(instant),
      unsubscribed_at: maybe(instant),
    }),
    { selector: (l) => l.list, maxLength: 3 },
  ),
});

describe.each(ENGINES)('customer JSON written by the database (%s)', (engine) => {
  let storage: TestStorage;
  const samples = fc.sample(customer, { numRuns: 120, seed: 8 });

  /** Sample n's customer row as stored, its email made unique by its number. */
  function rowOf(n: number): CustomerTable {
    const { tags: _tags, lists: _lists, ...columns } = samples[n]!;
    return {
      ...columns,
      id: id('cus', n),
      workspace_id: WS,
      livemode: 0,
      email: columns.email === null ? null : `${n}.${columns.email.toLowerCase()}`,
      gender: null,
      how_heard_about_us: null,
      created_by_key_id: null,
      deleted_at: null,
    };
  }

  beforeAll(async () => {
    storage = await freshStorage(engine);
    const { db } = storage;
    const names = ['VIP', 'Wine "club"', 'Ünïcode ☕', 'back\\slash'];
    await db
      .insertInto('tags')
      .values(names.map((name, n) => ({ id: id('tag', n), workspace_id: WS, name, created_at: 1, updated_at: 1 })))
      .execute();
    await db
      .insertInto('lists')
      .values(
        names.slice(0, 3).map((name, n) => ({
          id: id('lst', n),
          workspace_id: WS,
          name,
          slug: `l${n}`,
          description: null,
          kind: null,
          created_at: 1,
          updated_at: 1,
        })),
      )
      .execute();
    for (const [n, { tags, lists }] of samples.entries()) {
      const row = rowOf(n);
      await db.insertInto('customers').values(row).execute();
      for (const t of tags) {
        await db
          .insertInto('customer_tags')
          .values({
            workspace_id: WS,
            customer_id: row.id,
            tag_id: id('tag', t.tag),
            added_at: t.added_at,
            added_by_key_id: null,
          })
          .execute();
      }
      for (const l of lists) {
        await db
          .insertInto('customer_lists')
          .values({
            workspace_id: WS,
            customer_id: row.id,
            list_id: id('lst', l.list),
            status: l.status,
            added_at: l.added_at,
            unsubscribed_at: l.unsubscribed_at,
            added_by_key_id: null,
          })
          .execute();
      }
    }
  });
  afterAll(() => storage?.drop());

  const reader = { workspaceId: WS, livemode: false, clock: () => NOW };
  const names = ['VIP', 'Wine "club"', 'Ünïcode ☕', 'back\\slash'];

  const byAdded = <T extends { added_at: number | null }>(a: T, b: T, ka: number, kb: number) =>
    a.added_at === b.added_at ? ka - kb : a.added_at === null ? -1 : b.added_at === null ? 1 : a.added_at - b.added_at;
  /** A sample's memberships in the record's order: oldest first, unknown first, then by id. */
  const sortedTags = (n: number) => [...samples[n]!.tags].sort((a, b) => byAdded(a, b, a.tag, b.tag));
  const sortedLists = (n: number) => [...samples[n]!.lists].sort((a, b) => byAdded(a, b, a.list, b.list));

  /** The test's own account of the record a sample makes: the oracle. */
  function expected(n: number): Record<string, unknown> {
    const { tags: _tags, lists: _lists, ...c } = samples[n]!;
    const email = c.email === null ? null : `${n}.${c.email.toLowerCase()}`;
    return {
      id: id('cus', n),
      object: 'customer',
      first_name: c.first_name,
      last_name: c.last_name,
      nickname: c.nickname,
      email,
      phone: c.phone,
      date_of_birth: c.date_of_birth,
      company: c.company,
      address: {
        line1: c.address_line1,
        line2: c.address_line2,
        suburb: c.address_suburb,
        state: c.address_state,
        postcode: c.address_postcode,
        country: c.address_country,
      },
      adult: c.date_of_birth !== null ? isAdultOn(c.date_of_birth, NOW) : c.adult === null ? null : c.adult === 1,
      marketing_consent: c.marketing_consent === 1,
      membership: { member: c.member === 1, tier: c.member_tier },
      tags: sortedTags(n).map((t) => ({ id: id('tag', t.tag), name: names[t.tag], added_at: toInstant(t.added_at) })),
      lists: sortedLists(n).map((l) => ({
        id: id('lst', l.list),
        name: names[l.list],
        status: l.status,
        added_at: toInstant(l.added_at),
        unsubscribed_at: toInstant(l.unsubscribed_at),
      })),
      livemode: false,
      created_at: toInstant(c.created_at),
      updated_at: toInstant(c.updated_at),
      version: String(c.version),
    };
  }

  it('one customer: the bytes of its record, keys in the schema order', async () => {
    expect(Object.keys(expected(0))).toEqual(Object.keys(Customer.properties));
    for (let n = 0; n < samples.length; n++) {
      const found = await readCustomerJson(storage.db, reader, id('cus', n));
      expect(found?.record).toBe(JSON.stringify(expected(n)));
      expect(found?.version).toBe(samples[n]!.version);
    }
  });

  it('a page: the same records, newest first, one past the limit', async () => {
    const rows = await pageCustomersJson(storage.db, reader, {
      email: undefined,
      updatedSince: null,
      after: null,
      take: 11,
    });
    expect(rows).toHaveLength(11);
    for (const row of rows) expect(row.record).toBe(JSON.stringify(expected(Number(row.id.slice(4)))));
    const order = [...rows].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
    expect(rows.map((r) => r.id)).toEqual(order.map((r) => r.id));
  });

  it('another workspace or mode sees nothing', async () => {
    expect(await readCustomerJson(storage.db, { ...reader, livemode: true }, id('cus', 0))).toBe(undefined);
    expect(
      await readCustomerJson(storage.db, { ...reader, workspaceId: 'wsp_1111111111111111111111' }, id('cus', 0)),
    ).toBe(undefined);
  });
});

describe.each(ENGINES)('the customer JSON checked against its schema (%s)', (engine) => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await freshStorage(engine);
  });
  afterAll(() => storage?.drop());
  const param = ((name: string) => name) as never;

  it('the Customer schema: every property has its source', () => {
    expect(() => customerJson(storage.db, param)).not.toThrow();
  });

  it('a property the SQL does not write is refused, at the top or nested', () => {
    const extra = Type.Object({ ...Customer.properties, loyalty_points: Type.Integer() });
    expect(() => customerJson(storage.db, param, extra)).toThrow(/of \$ does not match.*no source for loyalty_points/);
    const address = Type.Object({ ...Customer.properties.address.properties, geo: Type.String() });
    const nested = Type.Object({ ...Customer.properties, address });
    expect(() => customerJson(storage.db, param, nested)).toThrow(/of \$\.address does not match.*no source for geo/);
    const tag = Type.Object({ ...Customer.properties.tags.items.properties, colour: Type.String() });
    const inArray = Type.Object({ ...Customer.properties, tags: Type.Array(tag) });
    expect(() => customerJson(storage.db, param, inArray)).toThrow(
      /of \$\.tags\[\] does not match.*no source for colour/,
    );
  });

  it('a source the schema does not name is refused', () => {
    const { company: _company, ...rest } = Customer.properties;
    expect(() => customerJson(storage.db, param, Type.Object(rest))).toThrow(/no schema property for company/);
  });
});

describe('adultCutoff', () => {
  it('says 18 or older exactly as the calendar does, for every date of birth and day', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(Date.UTC(1950, 0, 1)), max: new Date(Date.UTC(2100, 0, 1)), noInvalidDate: true }),
        fc.date({ min: new Date(Date.UTC(1930, 0, 1)), max: new Date(Date.UTC(2090, 0, 1)), noInvalidDate: true }),
        (today, born) => {
          const dob = born.toISOString().slice(0, 10);
          expect(isAdultOn(dob, today.getTime())).toBe(eighteenByCalendar(dob, today.getTime()));
        },
      ),
      { numRuns: 5000 },
    );
    // The edges by hand: 18 on 1 March when the 18th year has no 29 February.
    const feb28 = Date.UTC(2026, 1, 28);
    const mar1 = Date.UTC(2026, 2, 1);
    for (const [dob, now, adult] of [
      ['2008-02-29', feb28, false],
      ['2008-02-29', mar1, true],
      ['2008-02-28', feb28, true],
      ['2008-03-01', feb28, false],
    ] as const) {
      expect(isAdultOn(dob, now)).toBe(adult);
      expect(eighteenByCalendar(dob, now)).toBe(adult);
    }
  });
});
