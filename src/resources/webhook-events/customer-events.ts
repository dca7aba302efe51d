import type { Queryable } from '../../db/schema.ts';
import type { WebhookEventTable } from '../../db/tables/webhook.ts';
import { groupBy } from '../../lib/group-by.ts';
import type { Scope } from '../actor.model.ts';
import type { ChangeInput, CustomerRecords } from '../changes/change.model.ts';
import { readCustomerJson } from '../customers/customer-json.repo.ts';
import { eventRow, type NewEvent } from './event.model.ts';

/** What moves on every change, so is never a changed field (DECISIONS "Webhooks"). */
const EVERY_CHANGE = new Set(['updated_at', 'version']);

/** Both records come from the one SQL writer, so an object field is the same value only if written the same. */
const same = (a: unknown, b: unknown) =>
  a === b || (typeof a === 'object' && a !== null && JSON.stringify(a) === JSON.stringify(b));

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
  shown: { before?: string; after?: string } | undefined,
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
  const before: Record<string, unknown> = shown?.before === undefined ? {} : JSON.parse(shown.before);
  const after: Record<string, unknown> = JSON.parse(json);
  const previous = Object.fromEntries(
    Object.entries(before).filter(([field, value]) => !EVERY_CHANGE.has(field) && !same(value, after[field])),
  );
  return { type: 'customer.updated', at, objectJson: json, previous };
}
