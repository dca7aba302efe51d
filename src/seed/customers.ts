import type { CustomerListTable, CustomerTable, CustomerTagTable } from '../db/tables/customer.ts';
import { newId } from '../lib/ids.ts';
import { DAY_MS } from '../lib/time.ts';
import { isAdultOn } from '../resources/customers/customer-record.model.ts';
import type { SeedRun } from './context.ts';
import { EMAIL_DOMAINS, HOW_HEARD, MEMBER_TIERS } from './products.ts';
import { chance, int, pick, sample, weighted } from './random.ts';
import { spread } from './timeline.ts';

/** Customers (live and test) with their tag and list memberships, stored as columns. */
const TEST_SHARE = 0.1;

export interface SeedCustomer {
  id: string;
  livemode: boolean;
  name: string;
  email: string | null;
  phone: string | null;
  adult: boolean | null;
  createdAt: number;
}

export interface CustomerChunk {
  people: SeedCustomer[];
  rows: CustomerTable[];
  tags: CustomerTagTable[];
  lists: CustomerListTable[];
}

const asciiName = (s: string) =>
  s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]/g, '');

/** Unique per workspace and mode because of the run's tag and counter (DECISIONS "Customers"). */
function emailFor(run: SeedRun, first: string, last: string | null): string {
  const n = (run.counters.email++).toString(36);
  const local = [asciiName(first), last ? asciiName(last) : null].filter(Boolean).join('.');
  return `${local || 'guest'}.${run.emailTag}${n}@${pick(EMAIL_DOMAINS)}`;
}

function dateOfBirth(now: number): string {
  const age = weighted({ child: 1, adult: 8 }) === 'child' ? int(6, 17) : int(18, 75);
  return new Date(now - age * 365.25 * DAY_MS - int(0, 364) * DAY_MS).toISOString().slice(0, 10);
}

function customerRow(run: SeedRun, livemode: boolean, createdAt: number): { row: CustomerTable; person: SeedCustomer } {
  const f = run.profile.faker;
  const first = f.person.firstName();
  const last = chance(0.92) ? f.person.lastName() : null;
  const email = chance(0.88) ? emailFor(run, first, last) : null;
  const phone = chance(0.7) ? run.profile.mobile() : null;
  const dob = chance(0.35) ? dateOfBirth(run.now) : null;
  const adult = dob ? isAdultOn(dob, run.now) : chance(0.95) ? chance(0.92) : null;
  const hasAddress = chance(0.55);
  const member = chance(0.12);
  // A fifth were edited since, some time before now.
  const latest = Math.min(run.now, createdAt + 300 * DAY_MS);
  const updatedAt = chance(0.2) ? createdAt + Math.floor(Math.random() * (latest - createdAt)) : createdAt;
  const row: CustomerTable = {
    id: newId('customer'),
    workspace_id: run.workspaceId,
    livemode: livemode ? 1 : 0,
    first_name: first,
    last_name: last,
    nickname: chance(0.08) ? f.person.firstName() : null,
    email,
    phone,
    date_of_birth: dob,
    company: chance(0.08) ? f.company.name() : null,
    address_line1: hasAddress ? f.location.streetAddress() : null,
    address_line2: hasAddress && chance(0.15) ? f.location.secondaryAddress() : null,
    address_suburb: hasAddress ? f.location.city() : null,
    address_state: hasAddress ? pick(run.profile.cities).state : null,
    address_postcode: hasAddress ? f.location.zipCode(run.profile.country === 'US' ? '#####' : undefined) : null,
    address_country: hasAddress ? run.profile.country : null,
    adult: adult === null ? null : adult ? 1 : 0,
    // Staff-recorded consent: the API itself can never set true (SPEC "What the service does").
    marketing_consent: chance(0.4) ? 1 : 0,
    member: member ? 1 : 0,
    member_tier: member ? pick(MEMBER_TIERS) : null,
    gender: chance(0.6) ? pick(['male', 'female', 'other']) : null,
    how_heard_about_us: chance(0.3) ? pick(HOW_HEARD) : null,
    version: 1,
    created_by_key_id: null,
    created_at: createdAt,
    updated_at: updatedAt,
    deleted_at: null,
  };
  const name = [first, last].filter(Boolean).join(' ');
  return { row, person: { id: row.id, livemode, name, email, phone, adult, createdAt } };
}

function memberships(run: SeedRun, c: SeedCustomer, out: CustomerChunk, windowEnd: number): void {
  const { tagIds, listIds } = run.catalogue;
  const when = () => Math.min(run.now, c.createdAt + Math.floor(Math.random() * (windowEnd - c.createdAt)));
  const tagCount = Number(weighted({ 0: 50, 1: 30, 2: 15, 3: 5 }));
  for (const tagId of sample(tagIds, tagCount)) {
    out.tags.push({
      workspace_id: run.workspaceId,
      customer_id: c.id,
      tag_id: tagId,
      added_at: when(),
      added_by_key_id: null,
    });
  }
  const listCount = Number(weighted({ 0: 45, 1: 40, 2: 15 }));
  for (const listId of sample(listIds, listCount)) {
    const added = when();
    const left = chance(0.15);
    out.lists.push({
      workspace_id: run.workspaceId,
      customer_id: c.id,
      list_id: listId,
      status: left ? 'unsubscribed' : 'active',
      added_at: added,
      unsubscribed_at: left ? Math.min(run.now, added + int(1, 200) * DAY_MS) : null,
      added_by_key_id: null,
    });
  }
}

/** `n` customers created in [from, to), oldest first, distinct instants. */
export function buildCustomers(run: SeedRun, n: number, from: number, to: number): CustomerChunk {
  const out: CustomerChunk = { people: [], rows: [], tags: [], lists: [] };
  for (const t of spread(n, from, to)) {
    const { row, person } = customerRow(run, !chance(TEST_SHARE), run.seq.customers.next(t));
    out.rows.push(row);
    out.people.push(person);
    memberships(run, person, out, to);
  }
  return out;
}
