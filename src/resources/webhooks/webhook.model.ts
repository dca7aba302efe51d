import { randomBytes } from 'node:crypto';
import type { WebhookDeliveryTable, WebhookEndpointTable } from '../../db/tables/webhook.ts';
import { toInstant } from '../../lib/time.ts';
import { EVENT_TYPES } from './webhook-event.schema.ts';

/**
 * Webhook endpoints and deliveries as the CLI and the console show them (DECISIONS
 * "Webhooks"). The secret is never part of either: it is shown once, when made or rotated.
 */

export type WebhookEndpoint = ReturnType<typeof toEndpoint>;
export type WebhookDelivery = ReturnType<typeof toDelivery>;

export function toEndpoint(row: WebhookEndpointTable) {
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    mode: row.mode,
    events: JSON.parse(row.events) as string[],
    contacts_masked: row.contacts_masked === 1,
    status: row.status,
    created_at: toInstant(row.created_at),
    created_by: row.created_by,
  };
}

export function toDelivery(row: WebhookDeliveryTable & { type: string }) {
  return {
    event: row.event_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error,
    next_attempt_at: toInstant(row.next_attempt_at),
    created_at: toInstant(row.created_at),
  };
}

/** `whsec_` + base64 of 24 random bytes (the Standard Webhooks form). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The endpoint's event list, checked: `*` alone, or known types without repeats. */
export function parseEventTypes(raw: readonly string[] | undefined): string[] | string {
  if (raw === undefined || raw.length === 0) return ['*'];
  const events = [...new Set(raw.map((e) => e.trim()).filter((e) => e !== ''))];
  if (events.includes('*')) return events.length === 1 ? ['*'] : 'events: "*" stands alone';
  const unknown = events.filter((e) => !EVENT_TYPES.includes(e) || e === 'webhook.test');
  if (unknown.length > 0) return `events: unknown type ${unknown.join(', ')}; known: ${EVENT_TYPES.join(', ')}`;
  return events;
}
