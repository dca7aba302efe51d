import { sql } from 'kysely';
import type { Queryable } from '../../src/db/schema.ts';

/**
 * Customers whose tag_count or list_count (kept by migration 007's triggers) differ from
 * the memberships they have: the reads trust a count of 0, so this must always be empty.
 */
export async function membershipCountDrift(
  db: Queryable,
): Promise<{ id: string; tag_count: number; tags: number; list_count: number; lists: number }[]> {
  const rows = await db
    .selectFrom('customers as c')
    .select([
      'c.id',
      'c.tag_count',
      'c.list_count',
      sql<number>`(select count(*) from customer_tags t where t.customer_id = c.id)`.as('tags'),
      sql<number>`(select count(*) from customer_lists l where l.customer_id = c.id)`.as('lists'),
    ])
    .execute();
  return rows
    .map((r) => ({ ...r, tags: Number(r.tags), lists: Number(r.lists) }))
    .filter((r) => r.tag_count !== r.tags || r.list_count !== r.lists);
}
