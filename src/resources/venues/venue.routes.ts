import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import type { DocCollection } from '../doc-collection.ts';
import { registerDocRoutes } from '../doc-routes.ts';
import { Venue } from './venue.schema.ts';

export const venues: DocCollection<Record<string, never>, Venue> = {
  table: 'venues',
  object: 'venue',
  idKind: 'venue',
  mode: 'shared',
  filters: {},
};

export async function venueRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerDocRoutes(app, db, {
    path: '/venues',
    collection: 'venues',
    spec: venues,
    record: Venue,
    tag: 'Venues',
    summary: { list: 'List venues', get: 'Retrieve a venue' },
  });
}
