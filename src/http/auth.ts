import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';
import { checkKeySecret } from '../lib/key-secret.ts';
import type { Clock } from '../lib/time.ts';
import type { KeyCache } from '../resources/keys/key-cache.ts';
import type { ApiKey } from '../resources/keys/key.model.ts';

export interface AuthOptions {
  keys: KeyCache;
  clock: Clock;
  /** Told of every refused key, so the per-address limit can count it (awaited before the 401). */
  onRefused?: (request: FastifyRequest) => void | Promise<void>;
}

const unauthorized = (detail: string) =>
  new ApiError('unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="venue-api"' } });

function bearer(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

/** One answer for every kind of bad key, so a guess learns nothing (DECISIONS "Keys"). */
async function authenticate(request: FastifyRequest, options: AuthOptions): Promise<ApiKey> {
  const secret = bearer(request);
  if (secret === null) throw unauthorized('Send your API key as "Authorization: Bearer <API_KEY>".');
  // The checksum turns away mistyped and invented keys without a database lookup.
  const key = checkKeySecret(secret) ? await options.keys.lookup(secret) : null;
  if (!key || key.status === 'revoked' || (key.expiresAt !== null && key.expiresAt <= options.clock())) {
    throw unauthorized('The API key is missing, malformed, unknown, expired or revoked.');
  }
  if (key.status === 'paused') {
    throw new ApiError(
      'key_paused',
      'This key was paused for unusual activity. A person who manages API keys must resume it in the developer settings; retrying will not help.',
    );
  }
  return key;
}

export const auth = fp(async (app: FastifyInstance, options: AuthOptions) => {
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (!access || access.kind === 'public') return;
    let key: ApiKey;
    try {
      key = await authenticate(request, options);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'unauthorized') await options.onRefused?.(request);
      throw err;
    }
    request.scope = { workspaceId: key.workspaceId, livemode: key.mode === 'live', key, requestId: request.id };
  });
});
