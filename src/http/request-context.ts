import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';
import { newId } from '../lib/ids.ts';

/**
 * The API version (SPEC "Versioning"), written here only: /openapi.json's info.version is
 * this, and venue-api-client's SERVICE_VERSION is generated from that document.
 */
export const CURRENT_VERSION = '2026-10-08';
export const ACCEPTED_VERSIONS: readonly string[] = [CURRENT_VERSION];

export function newRequestId(): string {
  return newId('request');
}

/** The version a request asks for, trimmed; absent means the current one (as GitHub and Stripe do). */
function askedVersion(asked: string | string[] | undefined): { version: string; accepted: boolean } {
  if (asked === undefined) return { version: CURRENT_VERSION, accepted: true };
  const version = typeof asked === 'string' ? asked.trim() : '';
  return ACCEPTED_VERSIONS.includes(version)
    ? { version, accepted: true }
    : { version: CURRENT_VERSION, accepted: false };
}

/**
 * Headers every answer carries (DECISIONS "HTTP and errors"), set first so every refusal
 * has them too; Service-Version names the version that serves, the current one when the
 * asked one is refused.
 */
export const requestContext = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('Request-Id', request.id);
    reply.header('Cache-Control', 'no-store');
    reply.header('Service-Version', askedVersion(request.headers['service-version']).version);
    done();
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

/**
 * The Service-Version check (SPEC "Versioning" 2). Registered after auth and the limit
 * check: a 400 unsupported_version to a valid key counts and tells its allowance like
 * any other answer (SPEC "Limits" 2), and a bad key is a 401 first.
 */
export const versionCheck = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, _reply, done) => {
    const asked = request.headers['service-version'];
    if (askedVersion(asked).accepted) return done();
    throw new ApiError(
      'unsupported_version',
      `Service-Version "${String(asked).slice(0, 40)}" is not accepted; accepted versions: ${ACCEPTED_VERSIONS.join(', ')}.`,
    );
  });
});
