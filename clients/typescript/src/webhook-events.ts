import type {
  Activity,
  Booking,
  Customer,
  DeletedCustomer,
  Event,
  GiftCard,
  List,
  Order,
  Package,
  Tag,
  Ticket,
  Venue,
} from './types.ts';

/**
 * The events the API delivers to webhook endpoints (the /docs guide "Webhooks"). `type`
 * narrows `data.object`: a `switch (event.type)` gives each branch its record type.
 */

/** An endpoint as the console and `venue-api webhooks list` show it; its secret is never in it. */
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

interface EventEnvelope<T extends string> {
  /** `whe_…`, also sent as the `webhook-id` header: the same on every attempt, so dedupe on it. */
  id: string;
  object: 'webhook_event';
  type: T;
  /** When the change was committed: order by this, deliveries may arrive out of order. */
  created_at: string;
  livemode: boolean;
}

/** `<object>.created`: the record as a GET showed it right after the change. */
export interface WebhookCreatedEvent<T extends string, O> extends EventEnvelope<T> {
  data: { object: O };
}

/** `<object>.updated`: the record after the change, and the changed top-level fields' earlier values. */
export interface WebhookUpdatedEvent<T extends string, O> extends EventEnvelope<T> {
  data: { object: O; previous_attributes: Partial<O> };
}

/** What an import writes to the read-only collections, by the name in the event type. */
interface ImportedRecords {
  booking: Booking;
  order: Order;
  ticket: Ticket;
  gift_card: GiftCard;
  venue: Venue;
  activity: Activity;
  package: Package;
  event: Event;
  list: List;
  tag: Tag;
}

type ImportedRecordEvent = {
  [K in keyof ImportedRecords & string]:
    | WebhookCreatedEvent<`${K}.created`, ImportedRecords[K]>
    | WebhookUpdatedEvent<`${K}.updated`, ImportedRecords[K]>;
}[keyof ImportedRecords & string];

/** Every event the API sends. A receiver should answer 2xx to a type it does not know yet. */
export type WebhookEvent =
  | WebhookCreatedEvent<'customer.created', Customer>
  | WebhookUpdatedEvent<'customer.updated', Customer>
  | WebhookCreatedEvent<'customer.deleted', DeletedCustomer>
  | ImportedRecordEvent
  | WebhookCreatedEvent<'webhook.test', WebhookEndpoint>;

export type WebhookEventType = WebhookEvent['type'];

/** The event of one type: `WebhookEventOf<'customer.updated'>`. */
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;
