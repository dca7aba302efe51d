import { Type, type Static } from '@sinclair/typebox';
import {
  IdOf,
  Instant,
  LocalDate,
  LocalTime,
  Nullable,
  NullableEnum,
  NullableInstant,
  NullableInteger,
  NullableString,
} from '../wire.schema.ts';

/** SPEC "States and transitions": the values `status.type` can take. */
export const BOOKING_STATUS_TYPES = ['active', 'completed', 'cancelled', 'hold', 'expired'] as const;

const Product = Type.Object({
  object: Type.Union([Type.Literal('activity'), Type.Literal('package'), Type.Literal('event')]),
  id: Type.String({ pattern: '^(act|pkg|evt)_[0-9A-Za-z]{22}$', description: 'An `act_`, `pkg_` or `evt_` id.' }),
  name: NullableString,
});

/** SPEC "Booking". Money for a booking is on its order. */
export const Booking = Type.Object({
  id: IdOf('bkg'),
  object: Type.Literal('booking'),
  number: Type.String({ description: 'The booking number a person reads out.' }),
  venue: IdOf('ven'),
  status: Type.Object({
    name: Nullable(Type.String({ description: "The venue's own name for the status." })),
    type: NullableEnum(BOOKING_STATUS_TYPES),
  }),
  scheduled_at: NullableInstant,
  local_date: Nullable(LocalDate),
  local_time: Nullable(LocalTime),
  timezone: NullableString,
  duration_minutes: NullableInteger,
  guests: Type.Object({ adults: Type.Integer(), juniors: Type.Integer(), additional: Type.Integer() }),
  people: Type.Array(
    Type.Object({
      customer: IdOf('cus'),
      primary: Type.Boolean(),
      adult: Nullable(Type.Boolean()),
      role: NullableString,
      checked_in_at: NullableInstant,
    }),
  ),
  lines: Type.Array(Type.Object({ product: Nullable(Product), quantity: Type.Integer() })),
  source: Nullable(Type.String({ description: 'Where the booking came from.' })),
  blocked: Type.Boolean({ description: "True for a staff block that holds time but is nobody's booking." }),
  checked_in_at: NullableInstant,
  // SPEC types this "string, null", not instant; it is kept as given.
  hold_expires_at: Nullable(Type.String({ description: 'When an unpaid hold lapses.' })),
  livemode: Type.Boolean(),
  created_at: Instant,
  updated_at: Instant,
});
export type Booking = Static<typeof Booking>;

export const BookingFilters = {
  venue: Type.Optional(IdOf('ven')),
  number: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The booking number.' })),
  scheduled_from: Type.Optional(
    Type.String({ maxLength: 64, description: 'ISO 8601 with an offset: bookings starting at or after it.' }),
  ),
  scheduled_to: Type.Optional(
    Type.String({ maxLength: 64, description: 'ISO 8601 with an offset: bookings starting before it.' }),
  ),
};
