import type { Queryable } from '../../db/schema.ts';
import { canonicalJson } from '../../http/idempotency.store.ts';
import { toChange } from '../changes/change-log.repo.ts';

/**
 * What a membership that test keys added replaced (SPEC "Behaviour rules" 9: anything staff
 * made is never touched). Adding a customer back to a list they left overwrites the staff's
 * `unsubscribed` membership, so DELETE /test-data puts back the state from before the
 * earliest test-key add still in effect, found in the change log: the add that made the
 * current membership, then, while what it replaced was itself a test key's, the add that
 * made that one. Null means "not a member": the membership goes. Tags hold no status, and a
 * tag is only ever added where there was none, so for them this is always null.
 */
const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

function addedByTestKey(state: unknown, testKeys: Set<string>): boolean {
  const by = (state as { added_by_key_id?: unknown } | null)?.added_by_key_id;
  return typeof by === 'string' && testKeys.has(by);
}

export async function stateBeforeTestKeys(
  tx: Queryable,
  customerId: string,
  field: `tag:${string}` | `list:${string}`,
  current: unknown,
  testKeys: Set<string>,
): Promise<unknown> {
  const adds = (
    await tx
      .selectFrom('change_log')
      .selectAll()
      .where('object_id', '=', customerId)
      .where('action', 'in', ['customer.tag_add', 'customer.list_add'])
      .where('key_id', 'in', [...testKeys])
      .orderBy('customer_version', 'desc')
      .execute()
  )
    .map(toChange)
    .filter((c) => c.after !== null && field in c.after);
  let state = current;
  for (const add of adds) {
    if (!same(add.after![field], state)) continue;
    const before = add.before?.[field] ?? null;
    if (!addedByTestKey(before, testKeys)) return before;
    state = before;
  }
  // No add made what is there now (a log purged after a year, say): it is a test key's, so it goes.
  return null;
}
