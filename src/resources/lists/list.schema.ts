import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, Nullable, NullableString } from '../wire.schema.ts';

/** SPEC "List": a group of customers the venue sends to. */
export const List = Type.Object({
  id: IdOf('lst'),
  object: Type.Literal('list'),
  name: Type.String(),
  slug: Type.String(),
  description: NullableString,
  kind: Nullable(Type.String({ description: '`manual`, or a list kept by a rule.' })),
  created_at: Instant,
  updated_at: Instant,
});
export type List = Static<typeof List>;
