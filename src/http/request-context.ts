import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';
import { randomBase62 } from '../lib/ids.ts';

/**
 * The API version (SPEC "Versioning"), written here only: /openapi.json's info.version is
 * this, and venue-api-client's SERVICE_VERSION is generated from that document.
 */
export const CURRENT_VERSION = '2026-10-08';
export const ACCEPTED_VERSIONS: readonly string[] = [CURRENT_VERSION];

export function newRequestId(): string {
  return `req_${randomBase62(22)}`;
}

/**
 * Headers every answer carries (DECISIONS "HTTP and errors"), then the Service-Version
 * check: absent means the current version, as GitHub and Stripe do.
 */
export const requestContext = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
    reply.header('Cache-Control', 'no-store');
    const asked = request.headers['service-version'];
    if (asked === undefined) {
      reply.header('Service-Version', CURRENT_VERSION);
      return;
    }
    if (typeof asked !== 'string' || !ACCEPTED_VERSIONS.includes(asked.trim())) {
      reply.header('Service-Version', CURRENT_VERSION);
      throw new ApiError(
        'unsupported_version',
        `Service-Version "${String(asked).slice(0, 40)}" is not accepted; accepted versions: ${ACCEPTED_VERSIONS.join(', ')}.`,
      );
    }
    reply.header('Service-Version', asked.trim());
  });
  // The one log line of a request, when it has been answered: what, how it ended, how long,
  // and which key (never the query string, which can hold an email).
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        path: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        key: request.key?.id,
      },
      'request',
    );
    done();
  });
});
