import type { Transaction } from 'kysely';
import type { Database, Queryable } from '../../db/schema.ts';
import type { CustomerListTable, CustomerTagTable } from '../../db/tables/customer.ts';

/**
 * A customer's tag and list memberships (SPEC "Customer": tags, lists). A membership's
 * state is what the change log records for it; null means "not a member".
 */
export type MembershipKind = 'tag' | 'list';
export type TagLinkState = Pick<CustomerTagTable, 'added_at' | 'added_by_key_id'>;
export type ListLinkState = Pick<CustomerListTable, 'status' | 'added_at' | 'unsubscribed_at' | 'added_by_key_id'>;
export type LinkState<K extends MembershipKind> = K extends 'tag' ? TagLinkState : ListLinkState;

const TABLES = {
  tag: { links: 'customer_tags', column: 'tag_id', vocabulary: 'tags' },
  list: { links: 'customer_lists', column: 'list_id', vocabulary: 'lists' },
} as const;

const TAG_STATE = ['added_at', 'added_by_key_id'] as const;
const LIST_STATE = ['status', 'added_at', 'unsubscribed_at', 'added_by_key_id'] as const;

/** Whether the tag or list is one of the workspace's (they are made there, not through the API). */
export async function vocabularyExists(
  db: Queryable,
  kind: MembershipKind,
  workspaceId: string,
  id: string,
): Promise<boolean> {
  const row = await db
    .selectFrom(TABLES[kind].vocabulary as 'tags')
    .select('id')
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function getMembership<K extends MembershipKind>(
  db: Queryable,
  kind: K,
  customerId: string,
  id: string,
): Promise<LinkState<K> | null> {
  if (kind === 'tag') {
    const row = await db
      .selectFrom('customer_tags')
      .select(TAG_STATE)
      .where('customer_id', '=', customerId)
      .where('tag_id', '=', id)
      .executeTakeFirst();
    return (row ?? null) as LinkState<K> | null;
  }
  const row = await db
    .selectFrom('customer_lists')
    .select(LIST_STATE)
    .where('customer_id', '=', customerId)
    .where('list_id', '=', id)
    .executeTakeFirst();
  return (row ?? null) as LinkState<K> | null;
}

/** Makes the membership match `state` (null: not a member). */
export async function setMembership<K extends MembershipKind>(
  tx: Transaction<Database>,
  kind: K,
  workspaceId: string,
  customerId: string,
  id: string,
  state: LinkState<K> | null,
): Promise<void> {
  if (kind === 'tag') {
    await tx.deleteFrom('customer_tags').where('customer_id', '=', customerId).where('tag_id', '=', id).execute();
    if (state)
      await tx
        .insertInto('customer_tags')
        .values({ workspace_id: workspaceId, customer_id: customerId, tag_id: id, ...(state as TagLinkState) })
        .execute();
    return;
  }
  await tx.deleteFrom('customer_lists').where('customer_id', '=', customerId).where('list_id', '=', id).execute();
  if (state)
    await tx
      .insertInto('customer_lists')
      .values({ workspace_id: workspaceId, customer_id: customerId, list_id: id, ...(state as ListLinkState) })
      .execute();
}

/** Every membership of one customer, by tag or list id: the state an undo plans on. */
export async function membershipsOf(
  db: Queryable,
  customerId: string,
): Promise<{ tags: Map<string, TagLinkState>; lists: Map<string, ListLinkState> }> {
  const [tags, lists] = await Promise.all([
    db
      .selectFrom('customer_tags')
      .select(['tag_id', ...TAG_STATE])
      .where('customer_id', '=', customerId)
      .execute(),
    db
      .selectFrom('customer_lists')
      .select(['list_id', ...LIST_STATE])
      .where('customer_id', '=', customerId)
      .execute(),
  ]);
  return {
    tags: new Map(tags.map(({ tag_id, ...link }) => [tag_id, link])),
    lists: new Map(lists.map(({ list_id, ...link }) => [list_id, link])),
  };
}
