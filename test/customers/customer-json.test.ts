import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerTable } from '../../src/db/schema.ts';
import { findCustomerJson, pageCustomersJson } from '../../src/resources/customers/customer-json.repo.ts';
import {
  adultCutoff,
  isAdultOn,
  maskCustomerText,
  toCustomer,
} from '../../src/resources/customers/customer-record.model.ts';

/** The rule by calendar arithmetic, as a test oracle: the 18th birthday (29 Feb rolls to 1 Mar) is today or earlier. */
function eighteenByCalendar(dateOfBirth: string, now: number): boolean {
  const today = new Date(now);
  const [y, m, d] = dateOfBirth.split('-').map(Number) as [number, number, number];
  return Date.UTC(y + 18, m - 1, d) <= Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
}
import { loadMemberships } from '../../src/resources/customers/customer.repo.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The database writes a customer's JSON for the reads (customer-json.repo.ts). It must be,
 * byte for byte, what mapping the row (toCustomer) and serialising it gives: every kind of
 * value, text that needs escaping, memberships in their order, dates of birth around the
 * 18th birthday (29 February included).
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
    for (const [n, c] of samples.entries()) {
      const { tags, lists, ...columns } = c;
      const row: CustomerTable = {
        ...columns,
        id: id('cus', n),
        workspace_id: WS,
        livemode: 0,
        email: c.email === null ? null : `${n}.${c.email.toLowerCase()}`,
        gender: null,
        how_heard_about_us: null,
        created_by_key_id: null,
        deleted_at: null,
      };
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

  const scope = { workspaceId: WS, livemode: false };

  async function mapped(customerId: string): Promise<string> {
    const row = await storage.db
      .selectFrom('customers')
      .selectAll()
      .where('id', '=', customerId)
      .executeTakeFirstOrThrow();
    const m = await loadMemberships(storage.db, WS, [customerId]);
    return JSON.stringify(toCustomer(row, m.tags, m.lists, { masked: false, now: NOW }));
  }

  it('one customer: the same bytes as mapping the row', async () => {
    const reader = { db: storage.db, json: storage.engine.json };
    for (let n = 0; n < samples.length; n++) {
      const found = await findCustomerJson(reader, scope, id('cus', n), adultCutoff(NOW));
      expect(found?.record).toBe(await mapped(id('cus', n)));
      expect(found?.version).toBe(samples[n]!.version);
    }
  });

  it('a page: the same records, newest first, one past the limit', async () => {
    const reader = { db: storage.db, json: storage.engine.json };
    const rows = await pageCustomersJson(
      reader,
      scope,
      { email: undefined, updatedSince: null, after: null, take: 11 },
      adultCutoff(NOW),
    );
    expect(rows).toHaveLength(11);
    for (const row of rows) expect(row.record).toBe(await mapped(row.id));
    const order = [...rows].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1));
    expect(rows.map((r) => r.id)).toEqual(order.map((r) => r.id));
  });

  it('another workspace or mode sees nothing', async () => {
    const reader = { db: storage.db, json: storage.engine.json };
    expect(await findCustomerJson(reader, { workspaceId: WS, livemode: true }, id('cus', 0), '2000-01-01')).toBe(
      undefined,
    );
    expect(
      await findCustomerJson(
        reader,
        { workspaceId: 'wsp_1111111111111111111111', livemode: false },
        id('cus', 0),
        '2000-01-01',
      ),
    ).toBe(undefined);
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

  it('a masked key sees the contacts masked in the text, the rest unchanged', () => {
    const text = JSON.stringify({ id: 'cus_x', email: 'jane@example.com', phone: '+61412345678', tags: [] });
    expect(JSON.parse(maskCustomerText(text))).toEqual({
      id: 'cus_x',
      email: 'j***@example.com',
      phone: '+*********78',
      tags: [],
    });
  });
});
