import type { Queryable } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import { vocabularyExists } from './customer.write-repo.ts';
import type { WriteScope } from './write-scope.ts';

/**
 * The ids a tag or list membership write names (SPEC "Behaviour rules" 6, 8): a customer
 * id, and a tag or list that already exists in the workspace. Called inside the write's
 * transaction, so the tag or list is read where the membership is written.
 */
const TABLES = { tag: 'tags', list: 'lists' } as const;

export async function checkMembershipIds(
  tx: Queryable,
  scope: WriteScope,
  customerId: string,
  kind: 'tag' | 'list',
  id: string,
): Promise<void> {
  if (!isIdOf('customer', customerId)) throw notFound(`No customer ${customerId.slice(0, 64)}.`);
  const table = TABLES[kind];
  if (!isIdOf(kind, id) || !(await vocabularyExists(tx, table, scope.workspaceId, id))) {
    throw notFound(`No ${kind} ${id.slice(0, 64)} in this workspace; ${table} are made in the workspace, not through the API.`);
  }
}
