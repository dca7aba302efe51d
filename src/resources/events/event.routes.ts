import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerDocRoutes } from '../doc.routes.ts';
import { events } from './event.collection.ts';
import { Event } from './event.schema.ts';

export async function eventRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerDocRoutes(app, db, {
    path: '/events',
    collection: 'events',
    spec: events,
    record: Event,
    tag: 'Events',
    summary: { list: 'List events', get: 'Retrieve an event' },
    about:
      'Ticketed events with their dates; the same for every key, test or live. Their tickets are listed by `GET /tickets?event=`.',
  });
}
