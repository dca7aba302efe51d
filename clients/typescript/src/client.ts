import { CustomersResource, KeyResource, ReadResource, TestDataResource } from './resources.ts';
import { type ApiResponse, call, type RequestOptions, type TransportOptions } from './transport.ts';
import type {
  Activity,
  ActivityListParams,
  Booking,
  BookingListParams,
  Event,
  EventListParams,
  GiftCard,
  GiftCardListParams,
  List,
  ListListParams,
  Order,
  OrderListParams,
  Package,
  PackageListParams,
  Tag,
  TagListParams,
  Ticket,
  TicketListParams,
  Venue,
  VenueListParams,
  WebhookEventListParams,
} from './types.ts';
import type { WebhookFeedEvent } from './webhook-events.ts';

export interface VenueClientOptions {
  /** `vw_test_…` or `vw_live_…`. */
  apiKey: string;
  /** Where the API is, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** Retries after the first attempt; 0 turns retrying off. Default 2. */
  maxRetries?: number;
  /** Per attempt, in milliseconds. Default 30,000. */
  timeoutMs?: number;
  /** A 429 that asks to wait longer than this (a daily limit) is thrown, not waited for. Default 60. */
  maxRetryAfterSeconds?: number;
  /** The platform's fetch unless given (a proxy-aware one, or a mock in tests). */
  fetch?: typeof fetch;
  /** How retries wait; default `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The Venue Workspace REST API. Every request sends the key, the Service-Version these
 * types were generated for, and on a POST an Idempotency-Key that stays the same across the
 * client's retries, so a retried write is written once.
 */
export class VenueClient {
  readonly key: KeyResource;
  readonly venues: ReadResource<Venue, VenueListParams>;
  readonly customers: CustomersResource;
  readonly tags: ReadResource<Tag, TagListParams>;
  readonly lists: ReadResource<List, ListListParams>;
  readonly bookings: ReadResource<Booking, BookingListParams>;
  readonly orders: ReadResource<Order, OrderListParams>;
  readonly activities: ReadResource<Activity, ActivityListParams>;
  readonly packages: ReadResource<Package, PackageListParams>;
  readonly events: ReadResource<Event, EventListParams>;
  readonly tickets: ReadResource<Ticket, TicketListParams>;
  readonly giftCards: ReadResource<GiftCard, GiftCardListParams>;
  /** The events feed: every change this key may read, as the event a webhook delivery carries. */
  readonly webhookEvents: ReadResource<WebhookFeedEvent, WebhookEventListParams>;
  readonly testData: TestDataResource;
  private readonly transport: TransportOptions;

  constructor(options: VenueClientOptions) {
    if (!options.apiKey) throw new TypeError('VenueClient needs an apiKey.');
    if (!options.baseUrl) throw new TypeError('VenueClient needs a baseUrl.');
    this.transport = {
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      maxRetries: Math.max(0, options.maxRetries ?? 2),
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      random: Math.random,
      newIdempotencyKey: () => globalThis.crypto.randomUUID(),
    };
    const transport = this.transport;
    this.key = new KeyResource(transport);
    this.venues = new ReadResource(transport, '/venues');
    this.customers = new CustomersResource(transport);
    this.tags = new ReadResource(transport, '/tags');
    this.lists = new ReadResource(transport, '/lists');
    this.bookings = new ReadResource(transport, '/bookings');
    this.orders = new ReadResource(transport, '/orders');
    this.activities = new ReadResource(transport, '/activities');
    this.packages = new ReadResource(transport, '/packages');
    this.events = new ReadResource(transport, '/events');
    this.tickets = new ReadResource(transport, '/tickets');
    this.giftCards = new ReadResource(transport, '/gift-cards');
    this.webhookEvents = new ReadResource(transport, '/webhook-events');
    this.testData = new TestDataResource(transport);
  }

  /**
   * Any call of the API, with the same key, version, Idempotency-Key, retries and errors as
   * the methods above, answering the status and headers with the body: for a path chosen at
   * run time, or to read a header such as `Idempotent-Replayed`.
   */
  request<T = unknown>(req: RequestOptions): Promise<ApiResponse<T>> {
    return call<T>(this.transport, req);
  }
}
