import type { operations } from './generated/openapi.ts';

/**
 * Friendly names for the generated types (generated/openapi.ts, from the API's own OpenAPI
 * document by `npm run client:generate`): records, list filters and request bodies.
 */
type OperationId = keyof operations;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<O extends OperationId> = operations[O]['responses'];
/** The body of an operation's success answer (200 or 201). */
export type SuccessOf<O extends OperationId> = JsonOf<Responses<O>[Extract<keyof Responses<O>, 200 | 201>]>;
/** An operation's query parameters. */
export type QueryOf<O extends OperationId> = NonNullable<operations[O]['parameters']['query']>;
/** An operation's JSON request body. */
export type BodyOf<O extends OperationId> = JsonOf<NonNullable<operations[O]['requestBody']>>;

export type ApiKey = SuccessOf<'retrieveKey'>;
export type Venue = SuccessOf<'retrieveVenue'>;
export type Customer = SuccessOf<'retrieveCustomer'>;
export type DeletedCustomer = SuccessOf<'deleteCustomer'>;
/** What `customers.list({ updated_since, include_deleted: true })` lists for a customer deleted since. */
export type CustomerDeletion = Extract<SuccessOf<'listCustomers'>['data'][number], { deleted: true }>;
export type Tag = SuccessOf<'retrieveTag'>;
export type List = SuccessOf<'retrieveList'>;
export type Booking = SuccessOf<'retrieveBooking'>;
export type Order = SuccessOf<'retrieveOrder'>;
export type Activity = SuccessOf<'retrieveActivity'>;
export type Package = SuccessOf<'retrievePackage'>;
export type Event = SuccessOf<'retrieveEvent'>;
export type Ticket = SuccessOf<'retrieveTicket'>;
export type GiftCard = SuccessOf<'retrieveGiftCard'>;
export type TestDataRemoval = SuccessOf<'deleteTestData'>;

export type VenueListParams = QueryOf<'listVenues'>;
export type CustomerListParams = QueryOf<'listCustomers'>;
export type TagListParams = QueryOf<'listTags'>;
export type ListListParams = QueryOf<'listLists'>;
export type BookingListParams = QueryOf<'listBookings'>;
export type OrderListParams = QueryOf<'listOrders'>;
export type ActivityListParams = QueryOf<'listActivities'>;
export type PackageListParams = QueryOf<'listPackages'>;
export type EventListParams = QueryOf<'listEvents'>;
export type TicketListParams = QueryOf<'listTickets'>;
export type GiftCardListParams = QueryOf<'listGiftCards'>;
export type WebhookEventListParams = QueryOf<'listWebhookEvents'>;

export type CustomerCreateParams = BodyOf<'createCustomer'>;
export type CustomerUpdateParams = BodyOf<'updateCustomer'>;
