import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, forbidden } from '../errors.ts';

/**
 * The key's permissions against the route's declared access (SPEC "Authentication" 6,
 * DECISIONS "Keys"). Runs after auth and limits, before the body is parsed, so a
 * forbidden write never reads its body.
 */
export const access = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, _reply, done) => {
    checkAccess(request);
    done();
  });
});

function checkAccess(request: FastifyRequest): void {
  const rule = request.routeOptions.config.access;
  const key = request.key;
  if (!rule || !key) return;
  if (rule.kind === 'read' && !key.canRead.includes(rule.collection)) {
    throw forbidden(`This key may not read ${rule.collection}.`);
  }
  if (rule.kind === 'write') {
    if (key.access === 'read') throw forbidden('This key is read only; writes need a read and write key.');
    if (rule.permission === 'test_data.delete' && key.mode === 'live') {
      throw forbidden('DELETE /test-data needs a test key; live data is never removed this way.');
    }
    if (!key.canWrite.includes(rule.permission)) {
      throw new ApiError('forbidden', `This key may not make the write "${rule.permission}".`);
    }
    // Customer writes answer the customer: a read in disguise, so it needs the read too.
    if (rule.permission.startsWith('customers.') && !key.canRead.includes('customers')) {
      throw forbidden('This key may not read customers, and every customer write answers the customer.');
    }
  }
}
