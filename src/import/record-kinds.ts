import type { TObject } from '@sinclair/typebox';
import type { DocTable } from '../db/doc-rows.ts';
import type { IdKind } from '../lib/ids.ts';
import { Activity } from '../resources/activities/activity.schema.ts';
import { Booking } from '../resources/bookings/booking.schema.ts';
import { Customer } from '../resources/customers/customer.schema.ts';
import { Event } from '../resources/events/event.schema.ts';
import { GiftCard } from '../resources/gift-cards/gift-card.schema.ts';
import { List } from '../resources/lists/list.schema.ts';
import { Order } from '../resources/orders/order.schema.ts';
import { Package } from '../resources/packages/package.schema.ts';
import { Tag } from '../resources/tags/tag.schema.ts';
import { Ticket } from '../resources/tickets/ticket.schema.ts';
import { Venue } from '../resources/venues/venue.schema.ts';

/**
 * The records an import file may hold, in the API's own shapes (the same TypeBox schemas
 * the read endpoints answer with), and how each is stored. `tier` orders the checks so a
 * record is judged only after everything it can point at has been.
 */
export type ObjectName =
  | 'venue'
  | 'tag'
  | 'list'
  | 'activity'
  | 'package'
  | 'event'
  | 'customer'
  | 'booking'
  | 'order'
  | 'ticket'
  | 'gift_card';

export type TableName = DocTable | 'tags' | 'lists' | 'customers';

export interface RecordKind {
  object: ObjectName;
  schema: TObject;
  table: TableName;
  idKind: IdKind;
  tier: number;
  /** live and test rows (customers, bookings, orders), or live only (tickets, gift cards). */
  mode: 'shared' | 'mode' | 'live-only';
}

export const RECORD_KINDS: Record<ObjectName, RecordKind> = {
  venue: { object: 'venue', schema: Venue, table: 'venues', idKind: 'venue', tier: 0, mode: 'shared' },
  tag: { object: 'tag', schema: Tag, table: 'tags', idKind: 'tag', tier: 0, mode: 'shared' },
  list: { object: 'list', schema: List, table: 'lists', idKind: 'list', tier: 0, mode: 'shared' },
  activity: { object: 'activity', schema: Activity, table: 'activities', idKind: 'activity', tier: 1, mode: 'shared' },
  package: { object: 'package', schema: Package, table: 'packages', idKind: 'package', tier: 1, mode: 'shared' },
  event: { object: 'event', schema: Event, table: 'events', idKind: 'event', tier: 1, mode: 'shared' },
  customer: { object: 'customer', schema: Customer, table: 'customers', idKind: 'customer', tier: 1, mode: 'mode' },
  booking: { object: 'booking', schema: Booking, table: 'bookings', idKind: 'booking', tier: 2, mode: 'mode' },
  order: { object: 'order', schema: Order, table: 'orders', idKind: 'order', tier: 3, mode: 'mode' },
  ticket: { object: 'ticket', schema: Ticket, table: 'tickets', idKind: 'ticket', tier: 4, mode: 'live-only' },
  gift_card: {
    object: 'gift_card',
    schema: GiftCard,
    table: 'gift_cards',
    idKind: 'gift_card',
    tier: 4,
    mode: 'live-only',
  },
};

export const OBJECT_NAMES = Object.keys(RECORD_KINDS) as ObjectName[];
