import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/schema.ts';
import { customerReadRoutes } from './customers/customer.routes.ts';
import { keyRoutes } from './keys/key.routes.ts';
import { venueRoutes } from './venues/venue.routes.ts';

/** Every resource's routes, registered under the API root. */
export async function resourceRoutes(app: FastifyInstance, options: { db: Db }) {
  await app.register(keyRoutes);
  await app.register(venueRoutes, options);
  await app.register(customerReadRoutes, options);
}
