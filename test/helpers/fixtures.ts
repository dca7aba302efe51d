/**
 * Row builders for tests, one file per family; see fixtures/base.ts for how they write.
 */
export { nextInstant, type Where } from './fixtures/base.ts';
export { insertActivity, insertEvent, insertPackage, insertVenue } from './fixtures/catalog.ts';
export { insertCustomer, insertList, insertTag } from './fixtures/people.ts';
export { insertBooking, insertGiftCard, insertOrder, insertTicket } from './fixtures/sales.ts';
