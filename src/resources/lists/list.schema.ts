import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, Nullable, NullableString, described } from '../wire.schema.ts';

/** SPEC "List": a group of customers the venue sends to. */
export const List = Type.Object(
  {
    id: IdOf('lst'),
    object: Type.Literal('list', { description: 'Always `list`.' }),
    name: Type.String({ description: "The list's name." }),
    slug: Type.String({ description: 'A short, URL-safe name, unique in the workspace.' }),
    description: described(NullableString, 'What the list is for.'),
    kind: Nullable(Type.String({ description: '`manual`, or a list kept by a rule.' })),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'List' },
);
export type List = Static<typeof List>;
