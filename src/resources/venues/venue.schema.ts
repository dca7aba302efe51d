import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, NullableString } from '../wire.schema.ts';

/** SPEC "Venue". */
export const Venue = Type.Object({
  id: IdOf('ven'),
  object: Type.Literal('venue'),
  name: Type.String(),
  slug: Type.String(),
  booking_code: NullableString,
  timezone: Type.String({ description: 'IANA timezone in which every local time at this venue is read.' }),
  currency: NullableString,
  address: Type.Object({
    line1: NullableString,
    city: NullableString,
    state: NullableString,
    postal_code: NullableString,
    country: NullableString,
  }),
  phone: NullableString,
  email: NullableString,
  active: Type.Boolean(),
  created_at: Instant,
  updated_at: Instant,
});
export type Venue = Static<typeof Venue>;
