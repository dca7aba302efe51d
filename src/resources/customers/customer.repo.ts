import type { CustomerTable, Queryable } from '../../db/schema.ts';

export interface TagLink {
  customer_id: string;
  tag_id: string;
  name: string;
  added_at: number | null;
}

export interface ListLink {
  customer_id: string;
  list_id: string;
  name: string;
  status: 'active' | 'unsubscribed';
  added_at: number | null;
  unsubscribed_at: number | null;
}

export type CustomerRow = CustomerTable;

/**
 * Tag and list memberships of a page of customers: two queries, however long the page.
 * Oldest first; an unknown added_at (imported) first on both engines, whose NULL orders differ.
 */
export async function loadMemberships(
  db: Queryable,
  workspaceId: string,
  customerIds: string[],
): Promise<{ tags: TagLink[]; lists: ListLink[] }> {
  if (customerIds.length === 0) return { tags: [], lists: [] };
  const [tags, lists] = await Promise.all([
    db
      .selectFrom('customer_tags')
      .innerJoin('tags', 'tags.id', 'customer_tags.tag_id')
      .select(['customer_tags.customer_id', 'customer_tags.tag_id', 'tags.name', 'customer_tags.added_at'])
      .where('customer_tags.workspace_id', '=', workspaceId)
      .where('customer_tags.customer_id', 'in', customerIds)
      .orderBy('customer_tags.added_at', (ob) => ob.asc().nullsFirst())
      .orderBy('customer_tags.tag_id')
      .execute(),
    db
      .selectFrom('customer_lists')
      .innerJoin('lists', 'lists.id', 'customer_lists.list_id')
      .select([
        'customer_lists.customer_id',
        'customer_lists.list_id',
        'lists.name',
        'customer_lists.status',
        'customer_lists.added_at',
        'customer_lists.unsubscribed_at',
      ])
      .where('customer_lists.workspace_id', '=', workspaceId)
      .where('customer_lists.customer_id', 'in', customerIds)
      .orderBy('customer_lists.added_at', (ob) => ob.asc().nullsFirst())
      .orderBy('customer_lists.list_id')
      .execute(),
  ]);
  return { tags, lists };
}
