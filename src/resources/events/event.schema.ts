import { Type, type Static } from '@sinclair/typebox';
import {
  IdOf,
  Instant,
  LocalDate,
  LocalTime,
  Nullable,
  NullableInstant,
  NullableInteger,
  NullableString,
  described,
} from '../wire.schema.ts';

/** One date of an event. Local date and time are null with a null `scheduled_at`. */
const EventDate = Type.Object({
  id: IdOf('evd'),
  label: described(NullableString, "The date's name, when it has one."),
  scheduled_at: described(NullableInstant, 'When it starts (UTC).'),
  local_date: described(Nullable(LocalDate), "The day it starts on the venue's calendar."),
  local_time: described(Nullable(LocalTime), "The time it starts on the venue's clock."),
  duration_minutes: described(NullableInteger, 'How long it lasts, in minutes.'),
  max_tickets: described(NullableInteger, 'Most tickets this date sells.'),
  price_per_ticket: Nullable(Type.Integer({ description: 'Cents.' })),
  status: described(NullableString, "The date's status."),
});

/** SPEC "Event": a ticketed event with its dates; its tickets are a separate list. */
export const Event = Type.Object(
  {
    id: IdOf('evt'),
    object: Type.Literal('event', { description: 'Always `event`.' }),
    name: Type.String({ description: "The event's name." }),
    slug: Type.String({ description: 'A short, URL-safe name, unique in the workspace.' }),
    description: described(NullableString, 'What the event is, for customers.'),
    status: described(NullableString, 'Whether it is on sale, as the venue names it.'),
    venue: described(Nullable(IdOf('ven')), 'The `ven_` id of the venue it is at.'),
    price_per_ticket: Nullable(Type.Integer({ description: 'Cents.' })),
    max_tickets: described(NullableInteger, 'The ticket limit the venue set.'),
    min_tickets: described(NullableInteger, 'The fewest tickets an order may have, as the venue set it.'),
    min_age: described(NullableInteger, 'Youngest age admitted, in years.'),
    duration_minutes: described(NullableInteger, 'How long it lasts, in minutes.'),
    date_mode: Nullable(Type.String({ description: 'How its dates work: one date, several, or a series.' })),
    timezone: described(NullableString, 'The IANA timezone its local dates and times are read in.'),
    staff_only: Type.Boolean({ description: 'True when only staff can sell it.' }),
    dates: Type.Array(EventDate, { description: 'Its dates.' }),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Event' },
);
export type Event = Static<typeof Event>;
