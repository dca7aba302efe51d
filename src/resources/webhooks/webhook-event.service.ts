import { EventEmitter } from 'node:events';
import type { Tx } from '../../db/schema.ts';
import type { WebhookDeliveryTable } from '../../db/tables/webhook.ts';
import { sameJson } from '../../lib/canonical-json.ts';
import { groupBy } from '../../lib/group-by.ts';
import { newId } from '../../lib/ids.ts';
import { toInstant } from '../../lib/time.ts';
import type { Scope } from '../actor.model.ts';
import type { ChangeInput, CustomerRecords } from '../changes/change.model.ts';
import { readCustomerJson } from '../customers/customer-json.repo.ts';
import { enabledEndpoints, type EndpointTaker } from './webhook-endpoint.repo.ts';
import { insertEvent } from './webhook-outbox.repo.ts';
import { MAX_PAYLOAD_BYTES, takesAny } from './webhook.model.ts';

/**
 * The transactional outbox (DECISIONS "Webhooks"): an event and its deliveries are written in
 * the transaction of the change they describe; an event no enabled endpoint takes is not.
 */
export type NewEvent = {
  type: string;
  /** When the change was made. */
  at: number;
  /** For an update: the changed top-level fields' earlier values. */
  previous?: Record<string, unknown>;
  // `data.object`: the record as GET shows it right after the change (or the deleted shape), or
  // the same as JSON text when the writer has it so, to be put in the payload as it is.
} & ({ object: unknown; objectJson?: never } | { objectJson: string; object?: never });

/** The event's payload as sent (DECISIONS "Webhooks"); a record given as text goes in unparsed. */
function eventPayload(id: string, livemode: boolean, event: NewEvent): string {
  const envelope = { id, object: 'webhook_event', type: event.type, created_at: toInstant(event.at), livemode };
  const object = event.objectJson !== undefined ? event.objectJson : JSON.stringify(event.object);
  const previous = event.previous === undefined ? '' : `,"previous_attributes":${JSON.stringify(event.previous)}`;
  return `${JSON.stringify(envelope).slice(0, -1)},"data":{"object":${object}${previous}}}`;
}

/** Emits `written` whenever this process has committed deliveries due now: its worker looks at once. */
export const outbox = new EventEmitter<{ written: [] }>();

/** Deliveries due now were committed (after the write that made them is durable). */
export function outboxWritten(): void {
  outbox.emit('written');
}

/**
 * Writes each event with a delivery to every endpoint that takes its type (`endpoints`:
 * the scope's enabled ones, when the caller has read them). Answers how many deliveries.
 */
export async function recordEvents(
  tx: Tx,
  scope: Scope,
  events: readonly NewEvent[],
  endpoints?: readonly EndpointTaker[],
): Promise<number> {
  if (events.length === 0) return 0;
  const takers = endpoints ?? (await enabledEndpoints(tx, scope));
  let deliveries = 0;
  for (const event of events) {
    const to = takers.filter((e) => takesAny(e, [event.type]));
    if (to.length === 0) continue;
    const { workspaceId: workspace_id, livemode } = scope;
    const id = newId('webhook_event');
    const payload = eventPayload(id, livemode, event);
    const at = event.at;
    // An event too large to send has its deliveries failed here, once, not at each attempt.
    const bytes = Buffer.byteLength(payload);
    const tooLarge = bytes > MAX_PAYLOAD_BYTES;
    const rows = to.map(
      (endpoint): WebhookDeliveryTable => ({
        id: newId('webhook_delivery'),
        workspace_id,
        endpoint_id: endpoint.id,
        event_id: id,
        status: tooLarge ? 'failed' : 'pending',
        attempts: 0,
        last_status: null,
        last_error: tooLarge ? `payload of ${bytes} bytes is over ${MAX_PAYLOAD_BYTES / 1024} KiB` : null,
        next_attempt_at: tooLarge ? null : at,
        claimed_until: null,
        created_at: at,
        updated_at: at,
      }),
    );
    await insertEvent(
      tx,
      { id, workspace_id, livemode: livemode ? 1 : 0, type: event.type, payload, created_at: at },
      rows,
    );
    deliveries += rows.length;
  }
  return deliveries;
}

const CUSTOMER_EVENT_TYPES = ['customer.created', 'customer.updated', 'customer.deleted'];

/** What moves on every change, so is never a changed field (DECISIONS "Webhooks"). */
const EVERY_CHANGE = new Set(['updated_at', 'version']);

/**
 * A write's customer events, one a customer, written with their deliveries in its transaction
 * (the write pipeline's change hook; DECISIONS "Webhooks").
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

/**
 * A customer's event from its changes; undefined when the customer is no longer there to show.
 * `data.object` is what GET shows after the change; an update's `previous_attributes` are the
 * top-level fields that differ from the record the writer read before, with their values then.
 */
async function customerEvent(
  tx: Tx,
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
    Object.entries(before).filter(([field, value]) => !EVERY_CHANGE.has(field) && !sameJson(value, after[field])),
  );
  return { type: 'customer.updated', at, objectJson: json, previous };
}
