import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerDocRoutes } from '../doc.routes.ts';
import { venues } from './venue.collection.ts';
import { Venue } from './venue.schema.ts';

export async function venueRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerDocRoutes(app, db, {
    path: '/venues',
    collection: 'venues',
    spec: venues,
    record: Venue,
    tag: 'Venues',
    summary: { list: 'List venues', get: 'Retrieve a venue' },
    about: "The workspace's venues, the same for every key, test or live.",
  });
}
