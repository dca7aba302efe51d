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
} from '../wire.schema.ts';

/** One date of an event. Local date and time are null with a null `scheduled_at`. */
const EventDate = Type.Object({
  id: IdOf('evd'),
  label: NullableString,
  scheduled_at: NullableInstant,
  local_date: Nullable(LocalDate),
  local_time: Nullable(LocalTime),
  duration_minutes: NullableInteger,
  max_tickets: NullableInteger,
  price_per_ticket: Nullable(Type.Integer({ description: 'Cents.' })),
  status: NullableString,
});

/** SPEC "Event": a ticketed event with its dates; its tickets are a separate list. */
export const Event = Type.Object({
  id: IdOf('evt'),
  object: Type.Literal('event'),
  name: Type.String(),
  slug: Type.String(),
  description: NullableString,
  status: NullableString,
  venue: Nullable(IdOf('ven')),
  price_per_ticket: Nullable(Type.Integer({ description: 'Cents.' })),
  max_tickets: NullableInteger,
  min_tickets: NullableInteger,
  min_age: NullableInteger,
  duration_minutes: NullableInteger,
  date_mode: Nullable(Type.String({ description: 'How its dates work: one date, several, or a series.' })),
  timezone: NullableString,
  staff_only: Type.Boolean(),
  dates: Type.Array(EventDate),
  created_at: Instant,
  updated_at: Instant,
});
export type Event = Static<typeof Event>;
