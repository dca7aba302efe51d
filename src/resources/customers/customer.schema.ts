import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, Nullable, NullableEnum, NullableInstant, NullableString } from '../wire.schema.ts';

/** SPEC "Customer": every field, in every response. */
export const Customer = Type.Object({
  id: IdOf('cus'),
  object: Type.Literal('customer'),
  first_name: Type.String(),
  last_name: NullableString,
  nickname: NullableString,
  email: Nullable(Type.String({ description: 'Stored lowercase. One customer per email.' })),
  phone: Nullable(Type.String({ description: 'E.164.' })),
  date_of_birth: Nullable(Type.String({ description: 'yyyy-MM-dd' })),
  company: NullableString,
  address: Type.Object({
    line1: NullableString,
    line2: NullableString,
    suburb: NullableString,
    state: NullableString,
    postcode: NullableString,
    country: NullableString,
  }),
  adult: Nullable(Type.Boolean()),
  marketing_consent: Type.Boolean(),
  membership: Type.Object({ member: Type.Boolean(), tier: NullableString }),
  tags: Type.Array(Type.Object({ id: IdOf('tag'), name: Type.String(), added_at: NullableInstant })),
  lists: Type.Array(
    Type.Object({
      id: IdOf('lst'),
      name: Type.String(),
      status: NullableEnum(['active', 'unsubscribed']),
      added_at: NullableInstant,
      unsubscribed_at: NullableInstant,
    }),
  ),
  livemode: Type.Boolean(),
  created_at: Instant,
  updated_at: Instant,
  version: Type.String({ description: 'Send it in double quotes as If-Match to change this customer.' }),
});
export type Customer = Static<typeof Customer>;

export const CustomerFilters = {
  email: Type.Optional(Type.String({ maxLength: 320, description: 'Exact address, any case.' })),
};

export const DeletedCustomer = Type.Object({
  id: IdOf('cus'),
  object: Type.Literal('customer'),
  deleted: Type.Literal(true),
});
