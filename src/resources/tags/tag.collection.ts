import { toInstant } from '../../lib/time.ts';
import type { ColumnCollection } from '../column.service.ts';
import type { Tag } from './tag.schema.ts';

export const tags: ColumnCollection<'tags', Tag> = {
  table: 'tags',
  object: 'tag',
  idKind: 'tag',
  toRecord: (row) => ({
    id: row.id,
    object: 'tag',
    name: row.name,
    created_at: toInstant(row.created_at),
    updated_at: toInstant(row.updated_at),
  }),
};
