import type { Queryable } from '../../db/schema.ts';
import type { ListLinkState, TagLinkState } from './membership.repo.ts';

export type TestKeyMembership =
  | { kind: 'tag'; customerId: string; id: string; state: TagLinkState }
  | { kind: 'list'; customerId: string; id: string; state: ListLinkState };

/** What DELETE /test-data looks at (SPEC "Behaviour rules" 9): the workspace's test keys and what they made. */
export async function testKeyIds(db: Queryable, workspaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('mode', '=', 'test')
    .execute();
  return rows.map((r) => r.id);
}

/** What test keys made among the workspace's test customers: customers and memberships (tags first). */
export async function madeByTestKeys(
  db: Queryable,
  workspaceId: string,
  keys: string[],
): Promise<{ memberships: TestKeyMembership[]; customers: string[] }> {
  const tags = db
    .selectFrom('customer_tags')
    .innerJoin('customers', 'customers.id', 'customer_tags.customer_id')
    .select([
      'customer_tags.customer_id',
      'customer_tags.tag_id',
      'customer_tags.added_at',
      'customer_tags.added_by_key_id',
    ])
    .where('customer_tags.workspace_id', '=', workspaceId)
    .where('customers.livemode', '=', 0)
    .where('customers.deleted_at', 'is', null)
    .where('customer_tags.added_by_key_id', 'in', keys);
  const lists = db
    .selectFrom('customer_lists')
    .innerJoin('customers', 'customers.id', 'customer_lists.customer_id')
    .select([
      'customer_lists.customer_id',
      'customer_lists.list_id',
      'customer_lists.status',
      'customer_lists.added_at',
      'customer_lists.unsubscribed_at',
      'customer_lists.added_by_key_id',
    ])
    .where('customer_lists.workspace_id', '=', workspaceId)
    .where('customers.livemode', '=', 0)
    .where('customers.deleted_at', 'is', null)
    .where('customer_lists.added_by_key_id', 'in', keys);
  const made = db
    .selectFrom('customers')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('livemode', '=', 0)
    .where('deleted_at', 'is', null)
    .where('created_by_key_id', 'in', keys);
  const memberships: TestKeyMembership[] = [
    ...(await tags.execute()).map(({ customer_id, tag_id, ...state }) => ({
      kind: 'tag' as const,
      customerId: customer_id,
      id: tag_id,
      state,
    })),
    ...(await lists.execute()).map(({ customer_id, list_id, ...state }) => ({
      kind: 'list' as const,
      customerId: customer_id,
      id: list_id,
      state,
    })),
  ];
  return { memberships, customers: (await made.execute()).map((r) => r.id) };
}
