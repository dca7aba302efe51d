import { sameJson } from '../../lib/canonical-json.ts';
import type { Change } from '../changes/change.model.ts';

/**
 * What a membership that test keys added replaced (SPEC "Behaviour rules" 9: anything staff
 * made is never touched). Adding a customer back to a list they left overwrites the staff's
 * `unsubscribed` membership, so DELETE /test-data puts back the state from before the
 * earliest test-key add still in effect, found in the change log: the add that made the
 * current membership, then, while what it replaced was itself a test key's, the add that
 * made that one. Null means "not a member": the membership goes. Tags hold no status, and a
 * tag is only ever added where there was none, so for them this is always null.
 */
function addedByTestKey(state: unknown, testKeys: Set<string>): boolean {
  const by = (state as { added_by_key_id?: unknown } | null)?.added_by_key_id;
  return typeof by === 'string' && testKeys.has(by);
}

/** `adds`: the test keys' membership adds to this customer, newest first (change-log.repo membershipAddsBy). */
export function stateBeforeTestKeys(
  adds: Change[],
  field: `tag:${string}` | `list:${string}`,
  current: unknown,
  testKeys: Set<string>,
): unknown {
  let state = current;
  for (const add of adds) {
    if (add.after === null || !(field in add.after) || !sameJson(add.after[field], state)) continue;
    const before = add.before?.[field] ?? null;
    if (!addedByTestKey(before, testKeys)) return before;
    state = before;
  }
  // No add made what is there now (a log purged after a year, say): it is a test key's, so it goes.
  return null;
}
