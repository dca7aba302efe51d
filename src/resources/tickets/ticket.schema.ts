import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, Nullable, NullableInstant, NullableString, described } from '../wire.schema.ts';

/** SPEC "Ticket": one place at an event date, sold on an order. */
export const Ticket = Type.Object(
  {
    id: IdOf('tkt'),
    object: Type.Literal('ticket', { description: 'Always `ticket`.' }),
    event: described(Nullable(IdOf('evt')), 'The `evt_` id of the event.'),
    event_date: described(Nullable(IdOf('evd')), 'The `evd_` id of the event date this ticket is for.'),
    order: described(Nullable(IdOf('ord')), 'The `ord_` id of the order that sold it.'),
    customer: described(Nullable(IdOf('cus')), 'The `cus_` id of the customer who holds it.'),
    attendee_name: described(NullableString, 'Who the ticket is for, when named.'),
    status: described(NullableString, "The ticket's status, as the venue names it."),
    checked_in_at: described(NullableInstant, 'When the attendee was checked in; null until then.'),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Ticket' },
);
export type Ticket = Static<typeof Ticket>;

export const TicketFilters = {
  event: Type.Optional(described(IdOf('evt'), 'Only tickets for this `evt_` event.')),
  customer: Type.Optional(described(IdOf('cus'), 'Only tickets this `cus_` customer holds.')),
  order: Type.Optional(described(IdOf('ord'), 'Only tickets sold on this `ord_` order.')),
};
