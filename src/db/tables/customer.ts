import type { Generated } from 'kysely';

/**
 * Customers and their tag and list memberships: the records the API writes.
 */

export interface TagTable {
  id: string;
  workspace_id: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export interface ListTable {
  id: string;
  workspace_id: string;
  name: string;
  slug: string;
  description: string | null;
  kind: string | null;
  created_at: number;
  updated_at: number;
}

export interface CustomerTable {
  id: string;
  workspace_id: string;
  livemode: number;
  first_name: string;
  last_name: string | null;
  nickname: string | null;
  email: string | null;
  phone: string | null;
  date_of_birth: string | null;
  company: string | null;
  address_line1: string | null;
  address_line2: string | null;
  address_suburb: string | null;
  address_state: string | null;
  address_postcode: string | null;
  address_country: string | null;
  adult: number | null;
  marketing_consent: number;
  member: number;
  member_tier: string | null;
  gender: string | null;
  how_heard_about_us: string | null;
  version: number;
  /** The key that created the row (null for staff or import): DELETE /test-data needs it. */
  created_by_key_id: string | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/**
 * How many tags and lists a customer has, kept by triggers on customer_tags and
 * customer_lists (migration 007) so the reads skip the look-up for none. The application
 * never writes them; Generated keeps them out of every insert.
 */
export interface MembershipCountColumns {
  tag_count: Generated<number>;
  list_count: Generated<number>;
}

export interface CustomerTagTable {
  workspace_id: string;
  customer_id: string;
  tag_id: string;
  added_at: number | null;
  added_by_key_id: string | null;
}

export interface CustomerListTable {
  workspace_id: string;
  customer_id: string;
  list_id: string;
  status: 'active' | 'unsubscribed';
  added_at: number | null;
  unsubscribed_at: number | null;
  added_by_key_id: string | null;
}
