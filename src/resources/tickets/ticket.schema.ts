import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, Nullable, NullableInstant, NullableString } from '../wire.schema.ts';

/** SPEC "Ticket": one place at an event date, sold on an order. */
export const Ticket = Type.Object({
  id: IdOf('tkt'),
  object: Type.Literal('ticket'),
  event: Nullable(IdOf('evt')),
  event_date: Nullable(IdOf('evd')),
  order: Nullable(IdOf('ord')),
  customer: Nullable(IdOf('cus')),
  attendee_name: NullableString,
  status: NullableString,
  checked_in_at: NullableInstant,
  created_at: Instant,
  updated_at: Instant,
});
export type Ticket = Static<typeof Ticket>;

export const TicketFilters = {
  event: Type.Optional(IdOf('evt')),
  customer: Type.Optional(IdOf('cus')),
  order: Type.Optional(IdOf('ord')),
};
