import type { CustomerTable } from '../../db/tables/customer.ts';
import { forbidden } from '../../errors.ts';
import type { Actor } from '../actor.model.ts';
import { membershipAddsBy } from '../changes/change-log.repo.ts';
import type { ChangeInput } from '../changes/change.model.ts';
import type { Tx } from '../../db/schema.ts';
import type { Written } from '../writes/write.pipeline.ts';
import type { TestDataRemoval } from './customer-body.schema.ts';
import { readCustomerJson } from './customer-json.repo.ts';
import { bumpCustomer, lockCustomer } from './customer-write.repo.ts';
import { setMembership } from './membership.repo.ts';
import { stateBeforeTestKeys } from './test-data-prior.model.ts';
import { madeByTestKeys, testKeyIds } from './test-data.repo.ts';

/**
 * DELETE /test-data (SPEC "Behaviour rules" 9, DECISIONS "Customers"): the test customers
 * this workspace's test keys created, and the tag and list memberships they added, go.
 * Anything staff or an import made stays, and live data is never touched: a membership a
 * test key put back over a staff-made one returns to what staff left (test-data-prior.model.ts).
 * Each removal is a change of its own in the change log, so an undo can bring it back.
 */
export async function removeTestData(tx: Tx, actor: Actor, _input: null): Promise<Written<TestDataRemoval>> {
  if (actor.livemode) throw forbidden('DELETE /test-data needs a test key; live data is never removed this way.');
  const counts: TestDataRemoval = { object: 'test_data_removal', customers: 0, tags: 0, list_memberships: 0 };
  const keys = await testKeyIds(tx, actor.workspaceId);
  if (keys.length === 0) return { value: counts, changes: [] };
  // Hold every customer concerned first, in id order (no deadlock with a second removal),
  // then read what to remove: nothing can change under the lock meanwhile.
  const seen = await madeByTestKeys(tx, actor.workspaceId, keys);
  const ids = [...new Set([...seen.memberships.map((m) => m.customerId), ...seen.customers])].sort();
  const rows = new Map<string, CustomerTable>();
  for (const id of ids) {
    const row = await lockCustomer(tx, actor, id);
    if (row) rows.set(id, row);
  }
  if (rows.size === 0) return { value: counts, changes: [] };
  const again = await madeByTestKeys(tx, actor.workspaceId, keys);
  const held = (id: string) => rows.has(id);
  // As GET showed them before, for the webhook events of customers that stay (customer.updated).
  const records = new Map<string, { before: string }>();
  const leaving = new Set(again.customers);
  const staying = new Set(again.memberships.map((m) => m.customerId).filter((id) => held(id) && !leaving.has(id)));
  for (const id of staying) {
    const shown = await readCustomerJson(tx, actor, id);
    if (shown) records.set(id, { before: shown.record });
  }
  const now = actor.clock();
  const changes: ChangeInput[] = [];
  // Each removal is one change: it moves its customer's version on by one.
  const change = async (entry: Omit<ChangeInput, 'version' | 'at'>) => {
    const set = entry.action === 'customer.delete' ? { deleted_at: now } : {};
    const updated = await bumpCustomer(tx, rows.get(entry.customerId)!, now, set);
    rows.set(entry.customerId, updated);
    changes.push({ ...entry, at: now, version: updated.version });
  };
  const testKeys = new Set(keys);
  // The change rows are written after this loop, so a customer's adds read once stay true for all of it.
  const addsOf = new Map<string, Awaited<ReturnType<typeof membershipAddsBy>>>();
  for (const { kind, customerId, id, state } of again.memberships.filter((m) => held(m.customerId))) {
    const field = `${kind}:${id}` as const;
    let adds = addsOf.get(customerId);
    if (!adds) {
      adds = await membershipAddsBy(tx, customerId, keys);
      addsOf.set(customerId, adds);
    }
    const prior = stateBeforeTestKeys(adds, field, state, testKeys) as typeof state | null;
    await setMembership(tx, kind, actor.workspaceId, customerId, id, prior);
    const action = kind === 'tag' ? 'customer.tag_remove' : 'customer.list_remove';
    await change({ action, customerId, before: { [field]: state }, after: { [field]: prior } });
    if (kind === 'tag') counts.tags++;
    else counts.list_memberships++;
  }
  for (const id of again.customers.filter(held)) {
    await change({
      action: 'customer.delete',
      customerId: id,
      before: { deleted_at: null },
      after: { deleted_at: now },
    });
    counts.customers++;
  }
  return { value: counts, changes, records };
}
