/**
 * Webhook endpoints and the outbox of events and their deliveries (DECISIONS "Webhooks").
 */

/** A webhook endpoint (011-webhooks, DECISIONS "Webhooks"). */
export interface WebhookEndpointTable {
  id: string;
  workspace_id: string;
  mode: 'test' | 'live';
  url: string;
  events: string; // JSON: ["*"] or a list of types
  contacts_masked: number;
  status: 'enabled' | 'disabled';
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  /** When the warning of a run of failures went out (023-webhook-warning); null until then, and once it ends. */
  failing_warned_at: number | null;
  disabled_reason: string | null;
  created_at: number;
  created_by: string;
  updated_at: number;
}

/** An event of the outbox, written with the change it describes (011-webhooks). */
export interface WebhookEventTable {
  id: string;
  workspace_id: string;
  livemode: number;
  type: string;
  payload: string;
  created_at: number;
  /** The W3C traceparent of the request that made it, while tracing is on: its deliveries join that trace. */
  trace_parent?: string | null;
}

/** One event to one endpoint: its attempts so far and the next (011-webhooks). */
export interface WebhookDeliveryTable {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  /** A worker holds the delivery until then; past it, another may claim it. */
  claimed_until: number | null;
  created_at: number;
  updated_at: number;
}
