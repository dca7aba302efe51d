import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { getColumnRow, listColumnRows } from '../column.service.ts';
import { registerReadRoutes } from '../read.routes.ts';
import { lists } from './list.collection.ts';
import { List } from './list.schema.ts';

export async function listRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerReadRoutes(app, {
    path: '/lists',
    collection: 'lists',
    record: List,
    tag: 'Lists',
    summary: { list: 'List lists', get: 'Retrieve a list' },
    about:
      'Groups of customers the venues send to, the same for every key. Lists are made in the workspace, not through the API; `POST /customers/{id}/lists` adds a customer to one.',
    filters: {},
    list: (actor, query) => listColumnRows(db, lists, actor, query),
    get: (actor, id) => getColumnRow(db, lists, actor, id),
  });
}
