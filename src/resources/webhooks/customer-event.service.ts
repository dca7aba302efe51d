import type { Tx } from '../../db/schema.ts';
import { groupBy } from '../../lib/group-by.ts';
import type { Scope } from '../actor.model.ts';
import type { ChangeInput, CustomerRecords } from '../changes/change.model.ts';
import { readCustomerJson } from '../customers/customer-json.repo.ts';
import { CUSTOMER_EVENT_TYPES, customerEventType, previousAttributes } from './customer-event.model.ts';
import { enabledEndpoints } from './webhook-endpoint.repo.ts';
import { type NewEvent, recordEvents } from './webhook-event.service.ts';
import { takesAny } from './webhook.model.ts';

/**
 * A write's customer events, one a customer, written with their deliveries in its transaction
 * (the write pipeline's change hook). `data.object` is what GET shows after the change; an
 * update's `previous_attributes` compares it with the record the writer read before.
 */
export async function writeCustomerEvents(
  tx: Tx,
  scope: Scope,
  changes: readonly ChangeInput[],
  records?: CustomerRecords,
): Promise<boolean> {
  if (changes.length === 0) return false;
  const endpoints = (await enabledEndpoints(tx, scope)).filter((e) => takesAny(e, CUSTOMER_EVENT_TYPES));
  if (endpoints.length === 0) return false;
  const events: NewEvent[] = [];
  for (const [id, own] of groupBy(changes, (c) => c.customerId)) {
    const event = await customerEvent(tx, scope, id, own, records?.get(id));
    if (event !== undefined) events.push(event);
  }
  return (await recordEvents(tx, scope, events, endpoints)) > 0;
}

/** A customer's event from its changes; undefined when the customer is no longer there to show. */
async function customerEvent(
  tx: Tx,
  scope: Scope,
  id: string,
  own: readonly ChangeInput[],
  shown: { before?: string; after?: string } | undefined,
): Promise<NewEvent | undefined> {
  const type = customerEventType(own);
  let at = 0;
  for (const c of own) at = Math.max(at, c.at);
  if (type === 'customer.deleted') return { type, at, object: { id, object: 'customer', deleted: true } };
  const json = shown?.after ?? (await readRecord(tx, scope, id, at));
  if (json === undefined) return undefined;
  if (type === 'customer.created') return { type, at, objectJson: json };
  // Every writer of an update hands the record it read before; without one, no field is told.
  const before = shown?.before === undefined ? {} : (JSON.parse(shown.before) as Record<string, unknown>);
  return { type, at, objectJson: json, previous: previousAttributes(before, JSON.parse(json)) };
}

/** The customer as GET shows it at `at`, read with the API's own read path. */
async function readRecord(tx: Tx, scope: Scope, id: string, at: number): Promise<string | undefined> {
  const reader = { workspaceId: scope.workspaceId, livemode: scope.livemode, clock: () => at };
  return (await readCustomerJson(tx, reader, id))?.record;
}
