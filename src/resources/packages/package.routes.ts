import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerDocRoutes } from '../doc.routes.ts';
import { packages } from './package.collection.ts';
import { Package } from './package.schema.ts';

export async function packageRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerDocRoutes(app, db, {
    path: '/packages',
    collection: 'packages',
    spec: packages,
    record: Package,
    tag: 'Packages',
    summary: { list: 'List packages', get: 'Retrieve a package' },
    about: 'Bundles sold as one booking, with prices; the same for every key, test or live.',
  });
}
