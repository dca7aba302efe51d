import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, Nullable, NullableEnum, NullableInstant, NullableString, described } from '../wire.schema.ts';

/** SPEC "Customer": every field, in every response. */
export const Customer = Type.Object(
  {
    id: IdOf('cus'),
    object: Type.Literal('customer', { description: 'Always `customer`.' }),
    first_name: Type.String({ description: 'Given name; never empty.' }),
    last_name: described(NullableString, 'Family name.'),
    nickname: described(NullableString, 'What the customer likes to be called.'),
    email: Nullable(Type.String({ description: 'Stored lowercase. One customer per email.' })),
    phone: Nullable(Type.String({ description: 'E.164.' })),
    date_of_birth: Nullable(Type.String({ description: 'yyyy-MM-dd' })),
    company: described(NullableString, 'The company the customer is with.'),
    address: Type.Object(
      {
        line1: described(NullableString, 'Street address.'),
        line2: described(NullableString, 'Apartment, unit or building.'),
        suburb: described(NullableString, 'Suburb or city.'),
        state: described(NullableString, 'State or region.'),
        postcode: described(NullableString, 'Postal code.'),
        country: described(NullableString, 'Country.'),
      },
      { description: 'Postal address; every member may be null.' },
    ),
    adult: Nullable(
      Type.Boolean({ description: 'Age group: computed from date_of_birth when it is set, else as stored.' }),
    ),
    marketing_consent: Type.Boolean({ description: 'Whether they agreed to marketing email and SMS.' }),
    membership: Type.Object(
      {
        member: Type.Boolean({ description: "True for a member of the venue's membership scheme." }),
        tier: described(NullableString, 'The membership tier, as the venue names it.'),
      },
      { description: "Membership of the venue's loyalty scheme." },
    ),
    tags: Type.Array(
      Type.Object({
        id: IdOf('tag'),
        name: Type.String({ description: "The tag's name." }),
        added_at: described(NullableInstant, 'When the customer was tagged.'),
      }),
      { description: 'The tags the customer has.' },
    ),
    lists: Type.Array(
      Type.Object({
        id: IdOf('lst'),
        name: Type.String({ description: "The list's name." }),
        status: NullableEnum(['active', 'unsubscribed'], {
          description: '`active`, or `unsubscribed` once they left.',
        }),
        added_at: described(NullableInstant, 'When the customer was put on the list.'),
        unsubscribed_at: described(NullableInstant, 'When they left the list; null while active.'),
      }),
      { description: 'The lists the customer is on, or left.' },
    ),
    livemode: Type.Boolean({ description: 'False for test data, true for real data.' }),
    created_at: Instant,
    updated_at: Instant,
    version: Type.String({ description: 'Send it in double quotes as If-Match to change this customer.' }),
  },
  { title: 'Customer' },
);
export type Customer = Static<typeof Customer>;

export const CustomerFilters = {
  email: Type.Optional(Type.String({ maxLength: 320, description: 'Exact address, any case.' })),
};

export const DeletedCustomer = Type.Object(
  {
    id: IdOf('cus'),
    object: Type.Literal('customer', { description: 'Always `customer`.' }),
    deleted: Type.Literal(true, { description: 'Always true: the customer is gone.' }),
  },
  { title: 'DeletedCustomer' },
);
