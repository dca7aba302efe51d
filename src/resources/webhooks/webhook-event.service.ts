import type { WebhookDeliveryTable, WebhookEventTable } from '../../db/tables/webhook.ts';
import { newId } from '../../lib/ids.ts';
import { toInstant } from '../../lib/time.ts';
import type { Scope } from '../actor.model.ts';
import type { Tx } from '../writes/write.pipeline.ts';
import type { Engine } from '../../db/dialects/types.ts';
import { insertOutbox } from './webhook-outbox.repo.ts';
import { enabledEndpoints, type EndpointTaker } from './webhook-endpoint.repo.ts';
import { takesAny } from './webhook.model.ts';

/**
 * The transactional outbox (DECISIONS "Webhooks"): an event is written in the transaction of
 * the change it describes, so a committed change always has its event and a rolled-back one
 * has none. A customer's event rides in its change-log row until the delivery worker makes
 * its deliveries (customer-event.service.ts, webhook-fan-out.repo.ts); the events no change
 * row describes (a test event, an imported venue) are written here with one delivery per
 * matching enabled endpoint. An event no endpoint takes is not written at all, or, riding in
 * a change row, is dropped when its deliveries are made: there is no one to send it to, now
 * or later (an endpoint made afterwards receives what happens afterwards).
 */
export type NewEvent = {
  type: string;
  /** When the change was made. */
  at: number;
  /** For an update: the changed top-level fields' earlier values. */
  previous?: Record<string, unknown>;
} & (
  | {
      /** The record as GET shows it right after the change, or the deleted shape. */
      object: unknown;
      objectJson?: never;
    }
  | {
      /** The same as JSON text, when the writer has it so: put in the payload as it is. */
      objectJson: string;
      object?: never;
    }
);

/** The event's payload as sent (DECISIONS "Webhooks"); a record given as text goes in unparsed. */
export function eventPayload(id: string, livemode: boolean, event: NewEvent): string {
  const envelope = { id, object: 'webhook_event', type: event.type, created_at: toInstant(event.at), livemode };
  const object = event.objectJson !== undefined ? event.objectJson : JSON.stringify(event.object);
  const previous = event.previous === undefined ? '' : `,"previous_attributes":${JSON.stringify(event.previous)}`;
  return `${JSON.stringify(envelope).slice(0, -1)},"data":{"object":${object}${previous}}}`;
}

/** The outbox row of an event. */
export function eventRow(scope: Scope, event: NewEvent): WebhookEventTable {
  const id = newId('webhook_event');
  return {
    id,
    workspace_id: scope.workspaceId,
    livemode: scope.livemode ? 1 : 0,
    type: event.type,
    payload: eventPayload(id, scope.livemode, event),
    created_at: event.at,
  };
}

/** An event's delivery to one endpoint, due at once. */
export function deliveryRow(
  event: WebhookEventTable,
  endpointId: string,
  id = newId('webhook_delivery'),
): WebhookDeliveryTable {
  return {
    id,
    workspace_id: event.workspace_id,
    endpoint_id: endpointId,
    event_id: event.id,
    status: 'pending',
    attempts: 0,
    last_status: null,
    last_error: null,
    next_attempt_at: event.created_at,
    claimed_until: null,
    created_at: event.created_at,
    updated_at: event.created_at,
  };
}

/** Writes the events the endpoints take, with their deliveries, due at once. */
export async function writeEvents(
  tx: Tx,
  engine: Engine,
  scope: Scope,
  endpoints: readonly EndpointTaker[],
  events: readonly NewEvent[],
): Promise<void> {
  for (const event of events) {
    const takers = endpoints.filter((e) => takesAny(e, [event.type]));
    if (takers.length === 0) continue;
    const row = eventRow(scope, event);
    await insertOutbox(
      tx,
      engine,
      row,
      takers.map((endpoint) => deliveryRow(row, endpoint.id)),
    );
  }
}

/** The enabled endpoints of the scope taking any of these types; empty: nothing to record. */
export async function endpointsFor(tx: Tx, scope: Scope, types: readonly string[]): Promise<EndpointTaker[]> {
  const endpoints = await enabledEndpoints(tx, scope);
  return endpoints.filter((e) => takesAny(e, types));
}

/** One call for a writer that has its events at hand (the import's read-only records). */
export async function recordEvents(tx: Tx, engine: Engine, scope: Scope, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const endpoints = await endpointsFor(tx, scope, [...new Set(events.map((e) => e.type))]);
  if (endpoints.length > 0) await writeEvents(tx, engine, scope, endpoints, events);
}
