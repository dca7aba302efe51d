import type { Db } from '../../db/schema.ts';
import { runWrite, type WriteHooks } from '../../db/write-tx.ts';
import { notFound } from '../../errors.ts';
import { recordChange } from '../changes/change-log.repo.ts';
import { presentCustomer, type CustomerResult } from './customer.write.ts';
import { bumpCustomer, lockCustomer, getTagLink, setTagLink } from './customer.write-repo.ts';
import { checkMembershipIds } from './membership-ids.ts';
import { actorKeyId, type WriteScope } from './write-scope.ts';

/**
 * Tagging (SPEC "Behaviour rules" 6, 7): the tag must exist in the workspace; tagging a
 * customer who has the tag, or untagging one who has not, changes nothing and is no error.
 */
export async function addTag(
  db: Db,
  scope: WriteScope,
  customerId: string,
  tagId: string,
  hooks: WriteHooks<CustomerResult> = {},
): Promise<CustomerResult> {
  return runWrite(db, hooks, async (tx) => {
    await checkMembershipIds(tx, scope, customerId, 'tag', tagId);
    const row = await lockCustomer(tx, scope, customerId);
    if (!row) throw notFound(`No customer ${customerId}.`);
    if (await getTagLink(tx, customerId, tagId)) return presentCustomer(tx, scope, row);
    const now = scope.clock();
    const updated = await bumpCustomer(tx, row, now);
    const link = { added_at: now, added_by_key_id: actorKeyId(scope) };
    await setTagLink(tx, scope.workspaceId, customerId, tagId, link);
    await recordChange(tx, scope, now, {
      action: 'customer.tag_add',
      customerId,
      version: updated.version,
      before: { [`tag:${tagId}`]: null },
      after: { [`tag:${tagId}`]: link },
    });
    return presentCustomer(tx, scope, updated);
  });
}

export async function removeTag(db: Db, scope: WriteScope, customerId: string, tagId: string): Promise<CustomerResult> {
  return runWrite(db, {}, async (tx) => {
    await checkMembershipIds(tx, scope, customerId, 'tag', tagId);
    const row = await lockCustomer(tx, scope, customerId);
    if (!row) throw notFound(`No customer ${customerId}.`);
    const link = await getTagLink(tx, customerId, tagId);
    if (!link) return presentCustomer(tx, scope, row);
    const now = scope.clock();
    const updated = await bumpCustomer(tx, row, now);
    await setTagLink(tx, scope.workspaceId, customerId, tagId, null);
    await recordChange(tx, scope, now, {
      action: 'customer.tag_remove',
      customerId,
      version: updated.version,
      before: { [`tag:${tagId}`]: link },
      after: { [`tag:${tagId}`]: null },
    });
    return presentCustomer(tx, scope, updated);
  });
}
