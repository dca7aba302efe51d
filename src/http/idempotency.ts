import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, invalid } from '../errors.ts';
import { fingerprint, MAX_IDEMPOTENCY_KEY } from '../resources/writes/idempotency.model.ts';

/**
 * Idempotency-Key on every POST (SPEC "Rules common to all endpoints" 4, DECISIONS
 * "Idempotency"): read and checked here, before body validation, so a POST without its key
 * is told so first (428). The claim it makes is carried out by the write pipeline
 * (src/resources/writes/write.pipeline.ts), inside the write's own transaction.
 */
export const idempotency = fp(async (app: FastifyInstance) => {
  app.decorateRequest('idempotency', null);
  app.addHook('preValidation', (request, _reply, done) => {
    const key = request.key;
    if (request.method !== 'POST' || request.routeOptions.config.access?.kind !== 'write' || !key) return done();
    const value = request.headers['idempotency-key'];
    if (value === undefined) {
      throw new ApiError(
        'precondition_required',
        'Every POST needs an Idempotency-Key header (up to 255 characters; reuse it only to retry the same request).',
      );
    }
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_IDEMPOTENCY_KEY) {
      throw invalid(`Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters.`, [
        { field: 'Idempotency-Key', message: `must be 1 to ${MAX_IDEMPOTENCY_KEY} characters` },
      ]);
    }
    request.idempotency = {
      keyId: key.id,
      key: value,
      workspaceId: key.workspaceId,
      fingerprint: fingerprint('POST', request.url.split('?')[0]!, request.body),
      requestId: request.id,
    };
    done();
  });
});
