import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerDocRoutes } from '../doc.routes.ts';
import { activities } from './activity.collection.ts';
import { Activity } from './activity.schema.ts';

export async function activityRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerDocRoutes(app, db, {
    path: '/activities',
    collection: 'activities',
    spec: activities,
    record: Activity,
    tag: 'Activities',
    summary: { list: 'List activities', get: 'Retrieve an activity' },
    about: 'What the venues sell to book, with its prices and guest numbers; the same for every key, test or live.',
  });
}
