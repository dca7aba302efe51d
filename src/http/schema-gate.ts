import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';

/**
 * While the database lacks migrations this version needs (MIGRATE=off before `venue-api
 * migrate` ran), the API answers 503 with Retry-After: its statements would fail on the old schema.
 */
export const schemaGate = fp(async (app: FastifyInstance, options: { behind: () => string | null }) => {
  app.addHook('onRequest', (request, _reply, done) => {
    const access = request.routeOptions.config.access;
    const reason = access && access.kind !== 'public' ? options.behind() : null;
    if (reason === null) return done();
    throw new ApiError('service_unavailable', `Not ready: ${reason}. Nothing was done; retry shortly.`, {
      headers: { 'Retry-After': '5' },
    });
  });
});
