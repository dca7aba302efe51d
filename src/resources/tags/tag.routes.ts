import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { getColumnRow, listColumnRows } from '../column.service.ts';
import { registerReadRoutes } from '../read.routes.ts';
import { tags } from './tag.collection.ts';
import { Tag } from './tag.schema.ts';

/** SPEC shows only `GET /tags`; DECISIONS adds `GET /tags/{id}` and the record. */
export async function tagRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerReadRoutes(app, {
    path: '/tags',
    collection: 'tags',
    record: Tag,
    tag: 'Tags',
    summary: { list: 'List tags', get: 'Retrieve a tag' },
    about:
      'Labels on customers, the same for every key. Tags are made in the workspace, not through the API; `POST /customers/{id}/tags` tags a customer.',
    filters: {},
    list: (actor, query) => listColumnRows(db, tags, actor, query),
    get: (actor, id) => getColumnRow(db, tags, actor, id),
  });
}
