import type { WebhookDeliveryTable, WebhookEndpointTable } from '../../db/tables/webhook.ts';
import { toInstant } from '../../lib/time.ts';

// Webhook endpoints and deliveries as the CLI and the console show them (DECISIONS "Webhooks").
// The secret is never part of either: it is shown once, when made or rotated.

export type WebhookEndpoint = ReturnType<typeof toEndpoint>;
export type WebhookDelivery = ReturnType<typeof toDelivery>;
export type EndpointHealth = ReturnType<typeof withHealth>['health'];

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

/** The endpoint with how it is doing, for the console; apart, as the CLI prints the endpoint as DECISIONS fixes it. */
export function withHealth(row: WebhookEndpointTable) {
  const disabledReason = row.status === 'disabled' ? row.disabled_reason : null;
  const health = { failingSince: row.failing_since, warnedAt: row.failing_warned_at, disabledReason };
  return { endpoint: toEndpoint(row), health };
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
