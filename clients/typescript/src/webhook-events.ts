import type { WebhookEvent } from './generated/webhook-events.ts';

/**
 * The events the API delivers to webhook endpoints (the /docs guide "Webhooks"). Their
 * types are generated from the OpenAPI document's `webhooks` section
 * (generated/webhook-events.ts, `npm run client:generate`): `WebhookEvent` is their union,
 * and `type` narrows `data.object`, so a `switch (event.type)` gives each branch its record.
 */
export type * from './generated/webhook-events.ts';

export type WebhookEventType = WebhookEvent['type'];

/** The event of one type: `WebhookEventOf<'customer.updated'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;

/** An event of the feed (`GET /webhook-events`): any type but `webhook.test`, which is a delivery only. */
export type WebhookFeedEvent = Exclude<WebhookEvent, { type: 'webhook.test' }>;

/**
 * An endpoint as the console and `venue-api webhooks list --json` show it; its secret is
 * never in it. No API route serves endpoints, so the OpenAPI document does not describe it.
 */
export interface WebhookEndpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  mode: 'test' | 'live';
  /** `['*']` for every type, or the types it receives. */
  events: string[];
  /** Emails and phones in its events are masked, as for a masked key. */
  contacts_masked: boolean;
  status: 'enabled' | 'disabled';
  created_at: string;
  created_by: string;
}
