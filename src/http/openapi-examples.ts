import {
  CUSTOMER,
  TAG,
  LIST,
  list,
  venue,
  customer,
  tag,
  listRecord,
  booking,
  order,
  activity,
  packageRecord,
  event,
  ticket,
  giftCard,
  key,
  webhookEvent,
} from './openapi-example-records.ts';

/**
 * Each operation's `operationId` (what generated clients name their methods) and an example
 * of its request body and success answer, for the OpenAPI document only. The examples are
 * checked against the operation's own schemas (test/http/openapi-docs.test.ts), so they
 * cannot drift from what the API accepts and answers.
 */

export interface OperationDoc {
  operationId: string;
  /** The request body's example, for operations that take one. */
  request?: unknown;
  /** The success answer's example. */
  response: unknown;
}

const reads = (path: string, noun: string, plural: string, record: object): Record<string, OperationDoc> => ({
  [`GET ${path}`]: { operationId: `list${plural}`, response: list(record) },
  [`GET ${path}/:id`]: { operationId: `retrieve${noun}`, response: record },
});

/** By `METHOD url` as Fastify names the route. */
export const OPERATION_DOCS: Readonly<Record<string, OperationDoc>> = {
  'GET /key': { operationId: 'retrieveKey', response: key },
  ...reads('/venues', 'Venue', 'Venues', venue),
  ...reads('/customers', 'Customer', 'Customers', customer),
  'POST /customers': {
    operationId: 'createCustomer',
    request: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.com',
      phone: '0412 345 678',
      date_of_birth: '1990-12-10',
      address: { line1: '3 Ocean Street', suburb: 'Bondi', state: 'NSW', postcode: '2026', country: 'AU' },
    },
    response: { ...customer, tags: [], lists: [], membership: { member: false, tier: null }, version: '1' },
  },
  'PATCH /customers/:id': {
    operationId: 'updateCustomer',
    request: { nickname: 'Countess', company: 'Analytical Engines Pty Ltd' },
    response: { ...customer, nickname: 'Countess', company: 'Analytical Engines Pty Ltd', version: '5' },
  },
  'DELETE /customers/:id': {
    operationId: 'deleteCustomer',
    response: { id: CUSTOMER, object: 'customer', deleted: true },
  },
  'POST /customers/:id/tags': { operationId: 'addCustomerTag', request: { tag: TAG }, response: customer },
  'DELETE /customers/:id/tags/:tagId': {
    operationId: 'removeCustomerTag',
    response: { ...customer, tags: [], version: '5' },
  },
  'POST /customers/:id/lists': { operationId: 'addCustomerToList', request: { list: LIST }, response: customer },
  'DELETE /customers/:id/lists/:listId': {
    operationId: 'removeCustomerFromList',
    response: { ...customer, lists: [], version: '5' },
  },
  'DELETE /test-data': {
    operationId: 'deleteTestData',
    response: { object: 'test_data_removal', customers: 12, tags: 3, list_memberships: 5 },
  },
  ...reads('/tags', 'Tag', 'Tags', tag),
  ...reads('/lists', 'List', 'Lists', listRecord),
  ...reads('/bookings', 'Booking', 'Bookings', booking),
  ...reads('/orders', 'Order', 'Orders', order),
  ...reads('/activities', 'Activity', 'Activities', activity),
  ...reads('/packages', 'Package', 'Packages', packageRecord),
  ...reads('/events', 'Event', 'Events', event),
  ...reads('/tickets', 'Ticket', 'Tickets', ticket),
  ...reads('/gift-cards', 'GiftCard', 'GiftCards', giftCard),
  ...reads('/webhook-events', 'WebhookEvent', 'WebhookEvents', webhookEvent),
};
