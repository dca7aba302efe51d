import { Type, type Static } from '@sinclair/typebox';
import { Nullable, NullableEnum } from '../wire.schema.ts';

/**
 * Request bodies of the customer writes (SPEC "Customer body fields"). Strict: an unknown
 * field, at the top or inside `address`, is a 400 (DECISIONS "Customers"). The maximum
 * lengths are ours (SPEC leaves them open) and are listed in docs/behaviour.md.
 */
const MAX_LENGTH = {
  name: 100,
  company: 200,
  email: 254, // RFC 5321's longest deliverable address
  phone: 40,
  how_heard_about_us: 500,
  address_line: 200,
  address_part: 100,
  postcode: 20,
} as const;

const text = (max: number, description: string) => Nullable(Type.String({ maxLength: max, description }));

const AddressBody = Type.Object(
  {
    line1: Type.Optional(text(MAX_LENGTH.address_line, 'Street address.')),
    line2: Type.Optional(text(MAX_LENGTH.address_line, 'Apartment, unit or building.')),
    suburb: Type.Optional(text(MAX_LENGTH.address_part, 'Suburb or city.')),
    state: Type.Optional(text(MAX_LENGTH.address_part, 'State or region.')),
    postcode: Type.Optional(text(MAX_LENGTH.postcode, 'Postal code.')),
    country: Type.Optional(text(MAX_LENGTH.address_part, 'Country.')),
  },
  { additionalProperties: false, description: 'Only the members sent change.' },
);

const optionalFields = {
  last_name: Type.Optional(text(MAX_LENGTH.name, 'Family name; null clears it.')),
  nickname: Type.Optional(text(MAX_LENGTH.name, 'What the customer likes to be called; null clears it.')),
  company: Type.Optional(text(MAX_LENGTH.company, 'The company the customer is with; null clears it.')),
  email: Type.Optional(
    Nullable(Type.String({ maxLength: MAX_LENGTH.email, description: 'Stored lowercase; once set it cannot change.' })),
  ),
  phone: Type.Optional(
    Nullable(Type.String({ maxLength: MAX_LENGTH.phone, description: 'Any readable number; stored as E.164.' })),
  ),
  date_of_birth: Type.Optional(
    Nullable(
      Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'yyyy-MM-dd, a real date, not in the future.' }),
    ),
  ),
  gender: Type.Optional(
    NullableEnum(['male', 'female', 'other'] as const, { description: 'Stored, not shown in answers.' }),
  ),
  adult: Type.Optional(Type.Boolean({ description: 'Age group; used only while there is no date of birth.' })),
  marketing_consent: Type.Optional(Type.Boolean({ description: 'Only false is accepted; true gives 403.' })),
  how_heard_about_us: Type.Optional(
    text(MAX_LENGTH.how_heard_about_us, 'How the customer found the venue; stored, not shown in answers.'),
  ),
  address: Type.Optional(AddressBody),
};

const FirstName = Type.String({ minLength: 1, maxLength: MAX_LENGTH.name, description: 'Cannot be emptied.' });

export const CreateCustomerBody = Type.Object(
  { first_name: FirstName, ...optionalFields },
  { additionalProperties: false },
);
export type CreateCustomerBody = Static<typeof CreateCustomerBody>;

export const UpdateCustomerBody = Type.Object(
  { first_name: Type.Optional(FirstName), ...optionalFields },
  { additionalProperties: false, description: 'Any subset; only the fields sent change, null clears.' },
);
export type UpdateCustomerBody = Static<typeof UpdateCustomerBody>;

export const TagBody = Type.Object(
  { tag: Type.String({ minLength: 1, maxLength: 64, description: 'A `tag_` id of this workspace.' }) },
  { additionalProperties: false },
);
export const ListBody = Type.Object(
  { list: Type.String({ minLength: 1, maxLength: 64, description: 'A `lst_` id of this workspace.' }) },
  { additionalProperties: false },
);

export const TestDataRemoval = Type.Object(
  {
    object: Type.Literal('test_data_removal', { description: 'Always `test_data_removal`.' }),
    customers: Type.Integer({ description: 'Customers removed.' }),
    tags: Type.Integer({ description: 'Tag memberships removed.' }),
    list_memberships: Type.Integer({ description: 'List memberships removed.' }),
  },
  { title: 'TestDataRemoval' },
);
export type TestDataRemoval = Static<typeof TestDataRemoval>;
