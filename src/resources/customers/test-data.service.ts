import type { CustomerTable, Db, Queryable } from '../../db/schema.ts';
import { runWrite } from '../../db/write-tx.ts';
import { forbidden } from '../../errors.ts';
import { recordChange, type ChangeInput } from '../changes/change-log.repo.ts';
import type { TestDataRemoval } from './customer.body.ts';
import { bumpCustomer, lockCustomer, setListLink, setTagLink, type ListLinkState, type TagLinkState } from './customer.write-repo.ts';
import { stateBeforeTestKeys } from './test-data.prior.ts';
import type { WriteScope } from './write-scope.ts';

/**
 * DELETE /test-data (SPEC "Behaviour rules" 9, DECISIONS "Customers"): the test customers
 * this workspace's test keys created, and the tag and list memberships they added, go.
 * Anything staff or an import made stays, and live data is never touched: a membership a
 * test key put back over a staff-made one returns to what staff left (test-data.prior.ts).
 * Each removal is a change of its own in the change log, so an undo can bring it back.
 */
async function testKeyIds(db: Queryable, workspaceId: string): Promise<string[]> {
  const rows = await db.selectFrom('api_keys').select('id').where('workspace_id', '=', workspaceId).where('mode', '=', 'test').execute();
  return rows.map((r) => r.id);
}

/** What test keys made among the workspace's test customers: customers and memberships. */
async function madeByTestKeys(tx: Queryable, workspaceId: string, keys: string[]) {
  const tags = tx
    .selectFrom('customer_tags')
    .innerJoin('customers', 'customers.id', 'customer_tags.customer_id')
    .select(['customer_tags.customer_id', 'customer_tags.tag_id', 'customer_tags.added_at', 'customer_tags.added_by_key_id'])
    .where('customer_tags.workspace_id', '=', workspaceId)
    .where('customers.livemode', '=', 0)
    .where('customers.deleted_at', 'is', null)
    .where('customer_tags.added_by_key_id', 'in', keys);
  const lists = tx
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
  const made = tx
    .selectFrom('customers')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('livemode', '=', 0)
    .where('deleted_at', 'is', null)
    .where('created_by_key_id', 'in', keys);
  return { tags: await tags.execute(), lists: await lists.execute(), customers: (await made.execute()).map((r) => r.id) };
}

export async function removeTestData(db: Db, scope: WriteScope): Promise<TestDataRemoval> {
  if (scope.livemode) throw forbidden('DELETE /test-data needs a test key; live data is never removed this way.');
  const keys = await testKeyIds(db, scope.workspaceId);
  const result: TestDataRemoval = { object: 'test_data_removal', customers: 0, tags: 0, list_memberships: 0 };
  if (keys.length === 0) return result;
  return runWrite(db, {}, async (tx) => {
    // Hold every customer concerned first, in id order (no deadlock with a second removal),
    // then read what to remove: nothing can change under the lock meanwhile.
    const seen = await madeByTestKeys(tx, scope.workspaceId, keys);
    const ids = [...new Set([...seen.tags.map((r) => r.customer_id), ...seen.lists.map((r) => r.customer_id), ...seen.customers])].sort();
    const rows = new Map<string, CustomerTable>();
    for (const id of ids) {
      const row = await lockCustomer(tx, scope, id);
      if (row) rows.set(id, row);
    }
    if (rows.size === 0) return { ...result };
    const again = await madeByTestKeys(tx, scope.workspaceId, keys);
    const held = (id: string) => rows.has(id);
    const work = {
      tags: again.tags.filter((r) => held(r.customer_id)),
      lists: again.lists.filter((r) => held(r.customer_id)),
      customers: again.customers.filter(held),
    };
    const now = scope.clock();
    // Each removal is one change: it moves its customer's version on by one.
    const change = async (entry: Omit<ChangeInput, 'version'>) => {
      const set = entry.action === 'customer.delete' ? { deleted_at: now } : {};
      const updated = await bumpCustomer(tx, rows.get(entry.customerId)!, now, set);
      rows.set(entry.customerId, updated);
      await recordChange(tx, scope, now, { ...entry, version: updated.version });
    };
    const counts = { ...result };
    const testKeys = new Set(keys);
    for (const { customer_id, tag_id, ...link } of work.tags) {
      const field = `tag:${tag_id}` as const;
      const prior = (await stateBeforeTestKeys(tx, customer_id, field, link, testKeys)) as TagLinkState | null;
      await setTagLink(tx, scope.workspaceId, customer_id, tag_id, prior);
      await change({ action: 'customer.tag_remove', customerId: customer_id, before: { [field]: link }, after: { [field]: prior } });
      counts.tags++;
    }
    for (const { customer_id, list_id, ...link } of work.lists) {
      const field = `list:${list_id}` as const;
      const prior = (await stateBeforeTestKeys(tx, customer_id, field, link, testKeys)) as ListLinkState | null;
      await setListLink(tx, scope.workspaceId, customer_id, list_id, prior);
      await change({ action: 'customer.list_remove', customerId: customer_id, before: { [field]: link }, after: { [field]: prior } });
      counts.list_memberships++;
    }
    for (const id of work.customers) {
      await change({ action: 'customer.delete', customerId: id, before: { deleted_at: null }, after: { deleted_at: now } });
      counts.customers++;
    }
    return counts;
  });
}
