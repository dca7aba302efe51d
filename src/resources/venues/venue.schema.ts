import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, NullableString, described } from '../wire.schema.ts';

/** SPEC "Venue". */
export const Venue = Type.Object(
  {
    id: IdOf('ven'),
    object: Type.Literal('venue', { description: 'Always `venue`.' }),
    name: Type.String({ description: "The venue's name as customers see it." }),
    slug: Type.String({ description: 'A short, URL-safe name, unique in the workspace.' }),
    booking_code: described(NullableString, "The short code on the venue's booking numbers."),
    timezone: Type.String({ description: 'IANA timezone in which every local time at this venue is read.' }),
    currency: described(NullableString, "Lowercase ISO 4217 code of the venue's prices."),
    address: Type.Object(
      {
        line1: described(NullableString, 'Street address.'),
        city: described(NullableString, 'City or suburb.'),
        state: described(NullableString, 'State or region.'),
        postal_code: described(NullableString, 'Postal code.'),
        country: described(NullableString, 'Country.'),
      },
      { description: 'Where the venue is.' },
    ),
    phone: described(NullableString, "The venue's public phone number."),
    email: described(NullableString, "The venue's public email address."),
    active: Type.Boolean({ description: 'False for a venue that no longer trades.' }),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Venue' },
);
export type Venue = Static<typeof Venue>;
