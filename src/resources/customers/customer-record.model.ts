import { maskEmail, maskPhone } from '../../lib/mask.ts';
import { toInstant } from '../../lib/time.ts';
import type { CustomerRow, ListLink, TagLink } from './customer.repo.ts';
import type { Customer } from './customer.schema.ts';

/**
 * DECISIONS "Customers": with a date of birth, `adult` is 18 or older today: born on or
 * before the returned `yyyy-MM-dd`, today's date 18 years back. Compared as text, which the
 * database can do too (customer-json.repo.ts): a cutoff of 29 February in a year without one
 * still orders right, and someone born on 29 February turns 18 on 1 March in a year without it.
 */
export function adultCutoff(now: number): string {
  const today = new Date(now);
  const y = String(today.getUTCFullYear() - 18).padStart(4, '0');
  const m = String(today.getUTCMonth() + 1).padStart(2, '0');
  const d = String(today.getUTCDate()).padStart(2, '0');
  return `${y}-${m}-${d}`;
}

export function isAdultOn(dateOfBirth: string, now: number): boolean {
  return dateOfBirth <= adultCutoff(now);
}

/** A record's JSON text as a contacts-masked key sees it (DECISIONS "Keys"). */
export function maskCustomerText(text: string): string {
  const record = JSON.parse(text) as { email: string | null; phone: string | null };
  record.email = maskEmail(record.email);
  record.phone = maskPhone(record.phone);
  return JSON.stringify(record);
}

export function toCustomer(
  row: CustomerRow,
  tags: TagLink[],
  lists: ListLink[],
  options: { masked: boolean; now: number },
): Customer {
  return {
    id: row.id,
    object: 'customer',
    first_name: row.first_name,
    last_name: row.last_name,
    nickname: row.nickname,
    email: options.masked ? maskEmail(row.email) : row.email,
    phone: options.masked ? maskPhone(row.phone) : row.phone,
    date_of_birth: row.date_of_birth,
    company: row.company,
    address: {
      line1: row.address_line1,
      line2: row.address_line2,
      suburb: row.address_suburb,
      state: row.address_state,
      postcode: row.address_postcode,
      country: row.address_country,
    },
    adult: row.date_of_birth ? isAdultOn(row.date_of_birth, options.now) : row.adult === null ? null : row.adult === 1,
    marketing_consent: row.marketing_consent === 1,
    membership: { member: row.member === 1, tier: row.member_tier },
    tags: tags.map((t) => ({ id: t.tag_id, name: t.name, added_at: toInstant(t.added_at) })),
    lists: lists.map((l) => ({
      id: l.list_id,
      name: l.name,
      status: l.status,
      added_at: toInstant(l.added_at),
      unsubscribed_at: toInstant(l.unsubscribed_at),
    })),
    livemode: row.livemode === 1,
    created_at: toInstant(row.created_at),
    updated_at: toInstant(row.updated_at),
    version: String(row.version),
  };
}

function groupBy<T extends { customer_id: string }>(rows: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) {
    const list = map.get(row.customer_id);
    if (list) list.push(row);
    else map.set(row.customer_id, [row]);
  }
  return map;
}

export function toCustomers(
  rows: CustomerRow[],
  memberships: { tags: TagLink[]; lists: ListLink[] },
  options: { masked: boolean; now: number },
): Customer[] {
  const tags = groupBy(memberships.tags);
  const lists = groupBy(memberships.lists);
  return rows.map((row) => toCustomer(row, tags.get(row.id) ?? [], lists.get(row.id) ?? [], options));
}
