import type { WebhookEventTable } from '../../db/tables/webhook.ts';
import { newId } from '../../lib/ids.ts';
import { currentTraceParent } from '../../lib/trace.ts';
import { toInstant } from '../../lib/time.ts';
import type { Scope } from '../actor.model.ts';

/**
 * Events (DECISIONS "Webhooks", "Events feed"): one a change, written with it whether or not an
 * endpoint listens; the feed serves them and deliveries send them, so the two never disagree.
 */
export type NewEvent = {
  type: string;
  /** When the change was made. */
  at: number;
  /** For an update: the changed top-level fields' earlier values, as a JSON object's text. */
  previous?: string;
  // `data.object`: the record as GET shows it right after the change (or the deleted shape), or
  // the same as JSON text when the writer has it so, to be put in the payload as it is.
} & ({ object: unknown; objectJson?: never } | { objectJson: string; object?: never });

/** The event's row: its payload is the `webhook_event` object as sent, a record given as text put in unparsed. */
export function eventRow(scope: Scope, event: NewEvent): WebhookEventTable {
  const id = newId('webhook_event');
  const envelope = {
    id,
    object: 'webhook_event',
    type: event.type,
    created_at: toInstant(event.at),
    livemode: scope.livemode,
  };
  const object = event.objectJson !== undefined ? event.objectJson : JSON.stringify(event.object);
  const previous = event.previous === undefined ? '' : `,"previous_attributes":${event.previous}`;
  const payload = `${JSON.stringify(envelope).slice(0, -1)},"data":{"object":${object}${previous}}}`;
  const traceParent = currentTraceParent();
  return {
    id,
    workspace_id: scope.workspaceId,
    livemode: scope.livemode ? 1 : 0,
    type: event.type,
    payload,
    created_at: event.at,
    // Only while tracing: the row, and the statement that inserts it, are otherwise as they were.
    ...(traceParent === undefined ? {} : { trace_parent: traceParent }),
  };
}
