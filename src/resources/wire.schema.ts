import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * The building blocks of the wire format every resource schema shares (SPEC "Conventions
 * used by every resource"): nullable primitives, instants, money, ids and the list envelope.
 */

/** A primitive that may be null, as a JSON Schema type array (fast to serialise, OpenAPI 3.1). */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string' || type === 'object' || type === 'array') {
    return Type.Union([schema, Type.Null()]);
  }
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
}

/**
 * The schema with a description of the field it types (the shared constants below carry
 * none, or a generic one): every property in the OpenAPI document says what it holds.
 * Symbol keys (TypeBox's Kind, Optional) are copied by the spread.
 */
export function described<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}

export const Instant = Type.String({ format: 'date-time', description: 'UTC, ISO 8601 with milliseconds and Z.' });
export const NullableInstant = Nullable(
  Type.String({ format: 'date-time', description: 'UTC, ISO 8601 with milliseconds and Z; null when not set.' }),
);
export const NullableString = Nullable(Type.String());
export const NullableInteger = Nullable(Type.Integer());
export const Cents = Type.Integer({ description: 'Whole cents.' });
export const LocalDate = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}$',
  description: "yyyy-MM-dd, the venue's own calendar day.",
});
export const LocalTime = Type.String({ pattern: '^\\d{2}:\\d{2}$', description: 'HH:mm, 24-hour, venue clock.' });
export const Currency = Type.String({ pattern: '^[a-z]{3}$', description: 'Lowercase ISO 4217.' });

/** A string from a fixed set, or null: `null` must be in the enum too, or JSON Schema refuses it. */
export function NullableEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number] | null>({ ...options, type: ['string', 'null'], enum: [...values, null] });
}

export function IdOf(prefix: string) {
  return Type.String({ pattern: `^${prefix}_[0-9A-Za-z]{22}$`, description: `A \`${prefix}_\` id.` });
}

/** A page of records; named `<Item>List` after its item's name (`CustomerListItem` makes `CustomerList`). */
export function ListEnvelope<T extends TSchema>(item: T) {
  const name = typeof item.title === 'string' ? item.title.replace(/ListItem$/, '') : undefined;
  return Type.Object(
    {
      object: Type.Literal('list', { description: 'Always `list`.' }),
      data: Type.Array(item, { description: 'This page of records, newest first.' }),
      has_more: Type.Boolean({ description: 'True while there are more records: ask again with `starting_after`.' }),
      next_cursor: Type.Optional(
        Type.String({
          description: 'Pass it as `starting_after` for the next page; present only while has_more is true.',
        }),
      ),
    },
    name ? { title: `${name}List` } : {},
  );
}

/** The three query parameters every list takes (SPEC "Rules common to all endpoints" 2). */
export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '1 to 100, default 25.' })),
  starting_after: Type.Optional(Type.String({ maxLength: 512, description: 'The next_cursor of the previous page.' })),
  updated_since: Type.Optional(
    Type.String({ maxLength: 64, description: 'ISO 8601 with an offset: rows changed at or after it.' }),
  ),
};
