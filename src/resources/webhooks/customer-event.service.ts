import type { ChangeLogTable } from '../../db/tables/change.ts';
import { groupBy } from '../../lib/group-by.ts';
import { newId } from '../../lib/ids.ts';
import type { Scope } from '../actor.model.ts';
import type { ChangeInput } from '../changes/change.model.ts';
import { readCustomerJson } from '../customers/customer-json.repo.ts';
import type { Tx } from '../writes/write.pipeline.ts';
import {
  CUSTOMER_EVENT_TYPES,
  type CustomerRecords,
  customerEventType,
  previousAttributes,
} from './customer-event.model.ts';
import type { EndpointTaker } from './webhook-endpoint.repo.ts';
import { eventPayload, type NewEvent } from './webhook-event.service.ts';
import { eventsWritten } from './webhook-fan-out.repo.ts';
import { takesAny } from './webhook.model.ts';

/** Whether any of these enabled endpoints takes customer events: only then does a write make them. */
export function takesCustomerEvents(endpoints: readonly EndpointTaker[]): boolean {
  return endpoints.some((e) => takesAny(e, CUSTOMER_EVENT_TYPES));
}

/**
 * The webhook events of a write's customer changes (every writer: the API's writes and undo
 * through the write pipeline, the import), one a customer, each put in the `event` column of
 * that customer's last change-log row, so the event is committed with its change or not at
 * all (the transactional outbox; the delivery worker makes its deliveries,
 * webhook-fan-out.repo.ts). `rows[i]` is the row of `changes[i]`. `data.object` is what GET
 * shows after the change: the write's own answer where it has one (`records`), else read with
 * the API's read path inside the transaction; `previous_attributes` compares it with the
 * record the write read before it changed the customer. Answers whether it put any event in.
 */
export async function putCustomerEvents(
  tx: Tx,
  scope: Scope,
  changes: readonly ChangeInput[],
  rows: ChangeLogTable[],
  records?: CustomerRecords,
): Promise<boolean> {
  let put = false;
  for (const [id, own] of groupBy(changes, (c) => c.customerId)) {
    const event = await customerEvent(tx, scope, id, own, records?.get(id));
    if (event === undefined) continue;
    rows[changes.lastIndexOf(own.at(-1)!)]!.event = eventPayload(newId('webhook_event'), scope.livemode, event);
    put = true;
  }
  if (put) eventsWritten();
  return put;
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
  const row = await readCustomerJson(
    tx,
    { workspaceId: scope.workspaceId, livemode: scope.livemode, clock: () => at },
    id,
  );
  return row?.record;
}
