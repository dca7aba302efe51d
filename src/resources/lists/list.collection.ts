import { toInstant } from '../../lib/time.ts';
import type { ColumnCollection } from '../column.service.ts';
import type { List } from './list.schema.ts';

export const lists: ColumnCollection<'lists', List> = {
  table: 'lists',
  object: 'list',
  idKind: 'list',
  toRecord: (row) => ({
    id: row.id,
    object: 'list',
    name: row.name,
    slug: row.slug,
    description: row.description,
    kind: row.kind,
    created_at: toInstant(row.created_at),
    updated_at: toInstant(row.updated_at),
  }),
};
