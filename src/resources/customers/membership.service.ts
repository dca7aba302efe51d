import { notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import { actorKeyId, type Actor } from '../actor.model.ts';
import type { ChangeAction } from '../changes/change.model.ts';
import type { Tx } from '../../db/schema.ts';
import type { Written } from '../writes/write.pipeline.ts';
import { bumpShownCustomer, lockShownCustomer } from './customer-write.repo.ts';
import { answerOf, changedCustomer, requireVersion, type CustomerResult, type IfMatch } from './customer.service.ts';
import {
  getMembership,
  setMembership,
  vocabularyExists,
  type LinkState,
  type ListLinkState,
  type MembershipKind,
} from './membership.repo.ts';

/**
 * Tag and list memberships (SPEC "Behaviour rules" 6-8, "States and transitions"): the tag
 * or list must exist in the workspace. Tagging makes the tag present; adding to a list makes
 * the membership `active`, putting back a customer who left. Removing makes either absent.
 * Adding what is in force, or removing what is absent, changes nothing and is no error.
 */
export interface MembershipInput {
  customerId: string;
  kind: MembershipKind;
  /** The `tag_` or `lst_` id. */
  id: string;
  /** true: add (or put back); false: remove. */
  member: boolean;
  /** If-Match on the customer: a stale version is a 412, even when nothing would change. */
  ifMatch?: IfMatch;
}

const ACTIONS: Record<MembershipKind, { add: ChangeAction; remove: ChangeAction }> = {
  tag: { add: 'customer.tag_add', remove: 'customer.tag_remove' },
  list: { add: 'customer.list_add', remove: 'customer.list_remove' },
};

/** A tag that is there; a list membership that is active (an unsubscribed one is not). */
function inForce(kind: MembershipKind, state: LinkState<MembershipKind> | null): boolean {
  return state !== null && (kind === 'tag' || (state as ListLinkState).status === 'active');
}

function added(kind: MembershipKind, actor: Actor, now: number): LinkState<MembershipKind> {
  const by = actorKeyId(actor);
  return kind === 'tag'
    ? { added_at: now, added_by_key_id: by }
    : { status: 'active', added_at: now, unsubscribed_at: null, added_by_key_id: by };
}

export async function changeMembership(tx: Tx, actor: Actor, input: MembershipInput): Promise<Written<CustomerResult>> {
  const { customerId, kind, id, member } = input;
  if (!isIdOf('customer', customerId)) throw notFound(`No customer ${customerId.slice(0, 64)}.`);
  // Read inside the write's transaction, so the tag or list is there where the membership is written.
  if (!isIdOf(kind, id) || !(await vocabularyExists(tx, kind, actor.workspaceId, id))) {
    throw notFound(
      `No ${kind} ${id.slice(0, 64)} in this workspace; ${kind}s are made in the workspace, not through the API.`,
    );
  }
  const held = await lockShownCustomer(tx, actor, customerId);
  if (!held) throw notFound(`No customer ${customerId}.`);
  const { row, shown } = held;
  requireVersion(input.ifMatch, row.version);
  const before = await getMembership(tx, kind, customerId, id);
  if (member ? inForce(kind, before) : before === null) return { value: answerOf(actor, shown), changes: [] };
  const now = actor.clock();
  const after = member ? added(kind, actor, now) : null;
  // The membership first, so the customer the version's move returns shows it.
  await setMembership(tx, kind, actor.workspaceId, customerId, id, after);
  const updated = await bumpShownCustomer(tx, actor, row, now);
  const field = `${kind}:${id}`;
  return changedCustomer(actor, shown, updated, [
    {
      at: now,
      action: ACTIONS[kind][member ? 'add' : 'remove'],
      customerId,
      version: updated.version,
      before: { [field]: before },
      after: { [field]: after },
    },
  ]);
}
