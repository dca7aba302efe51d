import type { WebhookEndpointTable } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { toInstant } from '../../lib/time.ts';
import type { Scope } from '../actor.model.ts';
import type { Tx } from '../writes/write.pipeline.ts';
import type { Engine } from '../../db/dialects/types.ts';
import { insertOutbox } from './webhook-delivery.repo.ts';
import { enabledEndpoints } from './webhook-endpoint.repo.ts';
import { subscribes } from './webhook.model.ts';

/**
 * The transactional outbox (DECISIONS "Webhooks"): an event and one delivery per matching
 * enabled endpoint are written in the transaction of the change they describe, so a
 * committed change always has its deliveries and a rolled-back one has none. An event no
 * endpoint takes is not written at all: there is no one to send it to, now or later (an
 * endpoint made afterwards receives what happens afterwards).
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

/** Writes the events the endpoints take, with their deliveries, due at once. */
export async function writeEvents(
  tx: Tx,
  engine: Engine,
  scope: Scope,
  endpoints: readonly WebhookEndpointTable[],
  events: readonly NewEvent[],
): Promise<void> {
  for (const event of events) {
    const takers = endpoints.filter((e) => subscribes(JSON.parse(e.events) as string[], event.type));
    if (takers.length === 0) continue;
    const id = newId('webhook_event');
    const row = {
      id,
      workspace_id: scope.workspaceId,
      livemode: scope.livemode ? 1 : 0,
      type: event.type,
      payload: eventPayload(id, scope.livemode, event),
      created_at: event.at,
    };
    await insertOutbox(
      tx,
      engine,
      row,
      takers.map((endpoint) => ({
        id: newId('webhook_delivery'),
        workspace_id: scope.workspaceId,
        endpoint_id: endpoint.id,
        event_id: id,
        status: 'pending' as const,
        attempts: 0,
        last_status: null,
        last_error: null,
        next_attempt_at: event.at,
        claimed_until: null,
        created_at: event.at,
        updated_at: event.at,
      })),
    );
  }
}

/** The enabled endpoints of the scope taking any of these types; empty: nothing to record. */
export async function endpointsFor(tx: Tx, scope: Scope, types: readonly string[]): Promise<WebhookEndpointTable[]> {
  const endpoints = await enabledEndpoints(tx, scope);
  return endpoints.filter((e) => takesAny(e, types));
}

/** Whether the endpoint subscribes to any of these event types. */
export function takesAny(endpoint: WebhookEndpointTable, types: readonly string[]): boolean {
  const events = JSON.parse(endpoint.events) as string[];
  return types.some((t) => subscribes(events, t));
}

/** One call for a writer that has its events at hand (the import's read-only records). */
export async function recordEvents(tx: Tx, engine: Engine, scope: Scope, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const endpoints = await endpointsFor(tx, scope, [...new Set(events.map((e) => e.type))]);
  if (endpoints.length > 0) await writeEvents(tx, engine, scope, endpoints, events);
}
