import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';

/**
 * Requests that reach a server already shutting down (pipelined, or on a busy keep-alive
 * connection) are refused with a 503 problem document and `Connection: close`, in place of
 * Fastify's own JSON (its return503OnClosing is off): every answer is from the catalogue.
 * Requests already running when the shutdown began are finished.
 */
export const refuseWhileClosing = fp(async (app: FastifyInstance) => {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('Connection', 'close');
    throw new ApiError('service_unavailable', 'This server is shutting down; nothing was done. Retry the request.', {
      headers: { 'Retry-After': '1' },
    });
  });
});
