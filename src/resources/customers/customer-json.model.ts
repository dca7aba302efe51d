import type { CustomerTable } from '../../db/tables/customer.ts';
import { recordWriter, valueArray, type ValueSource } from '../../lib/record-writer.ts';
import { Customer } from './customer.schema.ts';

/**
 * The customer's JSON written in JavaScript from the Customer schema (lib/record-writer.ts),
 * from the values a write has at hand: a create's answer and its webhook event, which need
 * no read after the INSERT. The twin of customerSource in customer-json.repo.ts, one source
 * beside the other: the schema gives both their properties, order and JSON types, and a
 * test holds this one to the database's bytes for every kind of value, on both engines
 * (test/customers/customer-json.test.ts). Unmasked, as the database's.
 */
export interface CustomerValues {
  row: CustomerTable;
  /** adultCutoff(now): with a date of birth, `adult` is whether it is on or before this day. */
  adultCutoff: string;
  /** The customer's tags and lists in the record's order (oldest first, unknown first); none for a new customer. */
  tags: readonly { id: string; name: string; added_at: number | null }[];
  lists: readonly {
    id: string;
    name: string;
    status: string | null;
    added_at: number | null;
    unsubscribed_at: number | null;
  }[];
}

const CUSTOMER_VALUES: ValueSource<CustomerValues> = {
  id: ({ row }) => row.id,
  first_name: ({ row }) => row.first_name,
  last_name: ({ row }) => row.last_name,
  nickname: ({ row }) => row.nickname,
  email: ({ row }) => row.email,
  phone: ({ row }) => row.phone,
  date_of_birth: ({ row }) => row.date_of_birth,
  company: ({ row }) => row.company,
  address: {
    line1: ({ row }) => row.address_line1,
    line2: ({ row }) => row.address_line2,
    suburb: ({ row }) => row.address_suburb,
    state: ({ row }) => row.address_state,
    postcode: ({ row }) => row.address_postcode,
    country: ({ row }) => row.address_country,
  },
  adult: ({ row, adultCutoff }) =>
    row.date_of_birth !== null ? row.date_of_birth <= adultCutoff : row.adult === null ? null : row.adult === 1,
  marketing_consent: ({ row }) => row.marketing_consent === 1,
  membership: { member: ({ row }) => row.member === 1, tier: ({ row }) => row.member_tier },
  tags: valueArray(({ tags }: CustomerValues) => tags, {
    id: (t) => t.id,
    name: (t) => t.name,
    added_at: (t) => t.added_at,
  }),
  lists: valueArray(({ lists }: CustomerValues) => lists, {
    id: (l) => l.id,
    name: (l) => l.name,
    status: (l) => l.status,
    added_at: (l) => l.added_at,
    unsubscribed_at: (l) => l.unsubscribed_at,
  }),
  livemode: ({ row }) => row.livemode === 1,
  created_at: ({ row }) => row.created_at,
  updated_at: ({ row }) => row.updated_at,
  version: ({ row }) => String(row.version),
};

/** The customer's JSON text byte for byte as the database writes it; made as the module loads, so a schema property without a source stops the start, not a request. */
export const writeCustomerJson = recordWriter(Customer, CUSTOMER_VALUES);
