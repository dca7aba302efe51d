import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant } from '../wire.schema.ts';

/** DECISIONS "Lists and ids": a tag is {id, object: "tag", name, created_at, updated_at}. */
export const Tag = Type.Object(
  {
    id: IdOf('tag'),
    object: Type.Literal('tag', { description: 'Always `tag`.' }),
    name: Type.String({ description: "The tag's name, unique in the workspace." }),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Tag' },
);
export type Tag = Static<typeof Tag>;
