import { type Expression, type RawBuilder, sql } from 'kysely';
import { changedMembers } from '../../db/json-record.ts';
import { PreparedQuery } from '../../db/prepared.ts';
import type { Queryable } from '../../db/schema.ts';
import type { WebhookEventTable } from '../../db/tables/webhook.ts';
import { groupBy } from '../../lib/group-by.ts';
import type { Scope } from '../actor.model.ts';
import type { ChangeInput, CustomerRecords } from '../changes/change.model.ts';
import { readCustomerJson } from '../customers/customer-json.repo.ts';
import { eventRow, type NewEvent } from './event.model.ts';

/** What moves on every change, so is never a changed field (DECISIONS "Webhooks"). */
const EVERY_CHANGE = ['updated_at', 'version'];

/**
 * An update's `previous_attributes`: the top-level fields of the record before that differ
 * after, with their values then, written by the database (every writer's, and the one
 * statement's that writes an update with its event, write-at-once.repo.ts).
 */
export function previousAttributes(
  db: Queryable,
  before: Expression<string>,
  after: Expression<string>,
): RawBuilder<string> {
  return changedMembers(db, before, after, EVERY_CHANGE);
}

const PREVIOUS = new PreparedQuery<{ before: string; after: string }, { previous: string }>((db, param) =>
  db.selectNoFrom(previousAttributes(db, sql.val(param('before')), sql.val(param('after'))).as('previous')),
);

/** A write's customer events, one a customer changed (the write pipeline's change hook). */
export async function customerEvents(
  tx: Queryable,
  scope: Scope,
  changes: readonly ChangeInput[],
  records?: CustomerRecords,
): Promise<WebhookEventTable[]> {
  const rows: WebhookEventTable[] = [];
  for (const [id, own] of groupBy(changes, (c) => c.customerId)) {
    const event = await customerEvent(tx, scope, id, own, records?.get(id));
    if (event !== undefined) rows.push(eventRow(scope, event));
  }
  return rows;
}

/**
 * A customer's event from its changes; undefined when the customer is no longer there to show.
 * `data.object` is what GET shows after the change; an update's `previous_attributes` are the
 * top-level fields that differ from the record the writer read before, with their values then.
 */
async function customerEvent(
  tx: Queryable,
  scope: Scope,
  id: string,
  own: readonly ChangeInput[],
  shown: { before?: string; after?: string; previous?: string } | undefined,
): Promise<NewEvent | undefined> {
  const actions = new Set(own.map((c) => c.action));
  const at = own.reduce((latest, c) => Math.max(latest, c.at), 0);
  if (actions.has('customer.delete'))
    return { type: 'customer.deleted', at, object: { id, object: 'customer', deleted: true } };
  const reader = { workspaceId: scope.workspaceId, livemode: scope.livemode, clock: () => at };
  const json = shown?.after ?? (await readCustomerJson(tx, reader, id))?.record;
  if (json === undefined) return undefined;
  // A restore brings back a customer receivers were told is gone.
  if (actions.has('customer.create') || actions.has('customer.restore'))
    return { type: 'customer.created', at, objectJson: json };
  // Every writer of an update hands the record it read before; without one, no field is told.
  let previous = shown?.previous ?? '{}';
  if (shown?.previous === undefined && shown?.before !== undefined) {
    const [row] = await PREVIOUS.execute(tx, { before: shown.before, after: json });
    previous = row!.previous;
  }
  return { type: 'customer.updated', at, objectJson: json, previous };
}
