import type { Db } from '../../db/schema.ts';
import { runWrite, type WriteHooks } from '../../db/write-tx.ts';
import { notFound } from '../../errors.ts';
import { recordChange } from '../changes/change-log.repo.ts';
import { presentCustomer, type CustomerResult } from './customer.write.ts';
import { bumpCustomer, lockCustomer, getListLink, setListLink, type ListLinkState } from './customer.write-repo.ts';
import { checkMembershipIds } from './membership-ids.ts';
import { actorKeyId, type WriteScope } from './write-scope.ts';

/**
 * List membership (SPEC "States and transitions", "Behaviour rules" 8): adding makes it
 * `active` (a customer who left is put back); removing makes it absent. Adding an active
 * member, or removing one who is not on the list, changes nothing.
 */
export async function addToList(
  db: Db,
  scope: WriteScope,
  customerId: string,
  listId: string,
  hooks: WriteHooks<CustomerResult> = {},
): Promise<CustomerResult> {
  return runWrite(db, hooks, async (tx) => {
    await checkMembershipIds(tx, scope, customerId, 'list', listId);
    const row = await lockCustomer(tx, scope, customerId);
    if (!row) throw notFound(`No customer ${customerId}.`);
    const before = await getListLink(tx, customerId, listId);
    if (before?.status === 'active') return presentCustomer(tx, scope, row);
    const now = scope.clock();
    const updated = await bumpCustomer(tx, row, now);
    const after: ListLinkState = { status: 'active', added_at: now, unsubscribed_at: null, added_by_key_id: actorKeyId(scope) };
    await setListLink(tx, scope.workspaceId, customerId, listId, after);
    await recordChange(tx, scope, now, {
      action: 'customer.list_add',
      customerId,
      version: updated.version,
      before: { [`list:${listId}`]: before },
      after: { [`list:${listId}`]: after },
    });
    return presentCustomer(tx, scope, updated);
  });
}

export async function removeFromList(db: Db, scope: WriteScope, customerId: string, listId: string): Promise<CustomerResult> {
  return runWrite(db, {}, async (tx) => {
    await checkMembershipIds(tx, scope, customerId, 'list', listId);
    const row = await lockCustomer(tx, scope, customerId);
    if (!row) throw notFound(`No customer ${customerId}.`);
    const before = await getListLink(tx, customerId, listId);
    if (!before) return presentCustomer(tx, scope, row);
    const now = scope.clock();
    const updated = await bumpCustomer(tx, row, now);
    await setListLink(tx, scope.workspaceId, customerId, listId, null);
    await recordChange(tx, scope, now, {
      action: 'customer.list_remove',
      customerId,
      version: updated.version,
      before: { [`list:${listId}`]: before },
      after: { [`list:${listId}`]: null },
    });
    return presentCustomer(tx, scope, updated);
  });
}
