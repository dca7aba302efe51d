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
  described,
} from '../wire.schema.ts';

/** SPEC "States and transitions": the values `status.type` can take. */
const BOOKING_STATUS_TYPES = ['active', 'completed', 'cancelled', 'hold', 'expired'] as const;

const Product = Type.Object({
  object: Type.Union([Type.Literal('activity'), Type.Literal('package'), Type.Literal('event')], {
    description: 'What kind of product was booked.',
  }),
  id: Type.String({ pattern: '^(act|pkg|evt)_[0-9A-Za-z]{22}$', description: 'An `act_`, `pkg_` or `evt_` id.' }),
  name: described(NullableString, "The product's name."),
});

/** SPEC "Booking". Money for a booking is on its order. */
export const Booking = Type.Object(
  {
    id: IdOf('bkg'),
    object: Type.Literal('booking', { description: 'Always `booking`.' }),
    number: Type.String({ description: 'The booking number a person reads out.' }),
    venue: described(IdOf('ven'), 'The `ven_` id of the venue the booking is at.'),
    status: Type.Object(
      {
        name: Nullable(Type.String({ description: "The venue's own name for the status." })),
        type: NullableEnum(BOOKING_STATUS_TYPES, { description: 'The kind of status, for programs.' }),
      },
      { description: 'Where the booking is in its life.' },
    ),
    scheduled_at: described(NullableInstant, 'When the booking starts (UTC).'),
    local_date: described(Nullable(LocalDate), "The day it starts on the venue's calendar, yyyy-MM-dd."),
    local_time: described(Nullable(LocalTime), "The time it starts on the venue's clock, HH:mm."),
    timezone: described(NullableString, 'The IANA timezone local_date and local_time are read in.'),
    duration_minutes: described(NullableInteger, 'How long the booking lasts, in minutes.'),
    guests: Type.Object(
      {
        adults: Type.Integer({ description: 'Adult guests.' }),
        juniors: Type.Integer({ description: 'Junior guests.' }),
        additional: Type.Integer({ description: 'Guests beyond the adults and juniors priced.' }),
      },
      { description: 'How many people the booking is for.' },
    ),
    people: Type.Array(
      Type.Object({
        customer: described(IdOf('cus'), 'The `cus_` id of the customer.'),
        primary: Type.Boolean({ description: 'True for the customer the booking is under.' }),
        adult: Nullable(Type.Boolean({ description: 'Age group, when known.' })),
        role: described(NullableString, 'Their role on the booking, as the venue names it.'),
        checked_in_at: described(NullableInstant, 'When they were checked in.'),
      }),
      { description: 'The customers on the booking.' },
    ),
    lines: Type.Array(
      Type.Object({
        product: described(Nullable(Product), 'What was booked; null when the product is gone.'),
        quantity: Type.Integer({ description: 'How many.' }),
      }),
      { description: 'What was booked.' },
    ),
    source: Nullable(Type.String({ description: 'Where the booking came from.' })),
    blocked: Type.Boolean({ description: "True for a staff block that holds time but is nobody's booking." }),
    checked_in_at: described(NullableInstant, 'When the booking was checked in.'),
    // SPEC types this "string, null", not instant; it is kept as given.
    hold_expires_at: Nullable(Type.String({ description: 'When an unpaid hold lapses.' })),
    livemode: Type.Boolean({ description: 'False for test data, true for real data.' }),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Booking' },
);
export type Booking = Static<typeof Booking>;

export const BookingFilters = {
  venue: Type.Optional(described(IdOf('ven'), 'Only bookings at this `ven_` venue.')),
  number: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The booking number.' })),
  scheduled_from: Type.Optional(
    Type.String({ maxLength: 64, description: 'ISO 8601 with an offset: bookings starting at or after it.' }),
  ),
  scheduled_to: Type.Optional(
    Type.String({ maxLength: 64, description: 'ISO 8601 with an offset: bookings starting before it.' }),
  ),
};
