import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';
import { checkKeySecret } from '../lib/key-secret.ts';
import type { Clock } from '../lib/time.ts';
import { keyActor } from '../resources/actor.model.ts';
import type { KeyCache } from '../resources/keys/key.cache.ts';
import { addressAllowed } from '../resources/keys/allowed-ips.ts';
import type { ApiKey } from '../resources/keys/key.model.ts';
import { refuseRepeatedHeaders } from './strict-request.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The key the request carries when it is valid (known, not revoked, not expired), paused
     * or not: the RateLimit headers describe it (src/http/rate-limit.ts). `key` is set only
     * once the key may act.
     */
    validKey: ApiKey | null;
    /** The valid key the request carried, whatever refused it after (paused, its address): the request log's. */
    loggedKey: ApiKey | null;
  }
}

export interface AuthOptions {
  keys: KeyCache;
  clock: Clock;
  /**
   * Told of every request it refuses before its answer, `badKey` for a 401 or a 403 `forbidden`
   * (not for a paused key), so the per-address limit can hold and count it; what it throws
   * answers instead.
   */
  onRefused?: (request: FastifyRequest, badKey: boolean) => Promise<void>;
  /**
   * Runs before a secret this process has not cached is read from the database (a guess, or a
   * key's first use here), and may throw to answer instead: the per-address block, so a blocked
   * address costs no lookup and cannot time one.
   */
  beforeLookup?: (request: FastifyRequest) => Promise<void>;
}

const unauthorized = (detail: string) =>
  new ApiError('unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer realm="venue-api"' } });

const AUTHORIZATION = new Set(['authorization']);
/** What auth answers itself: a bad key (401), a key from an address it does not allow (403), a paused key. */
const REFUSALS = new Set(['unauthorized', 'forbidden', 'key_paused']);

function bearer(request: FastifyRequest): string | null {
  // Two Authorization headers carry no one key: a 400, whatever they hold (strict-request.ts).
  refuseRepeatedHeaders(request.raw.rawHeaders, AUTHORIZATION);
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

/** The key a secret names, when it is usable now: known, not revoked, not expired (paused is still a key). */
async function findUsableKey(
  request: FastifyRequest,
  secret: string | null,
  options: AuthOptions,
): Promise<ApiKey | null> {
  // The checksum turns away mistyped and invented keys without a lookup.
  if (secret === null || !checkKeySecret(secret)) return null;
  const { beforeLookup } = options;
  const key = await options.keys.lookup(secret, beforeLookup && (() => beforeLookup(request)));
  if (!key || key.status === 'revoked' || (key.expiresAt !== null && key.expiresAt <= options.clock())) return null;
  return key;
}

/** One answer for every kind of bad key, so a guess learns nothing (DECISIONS "Keys"). */
async function authenticate(request: FastifyRequest, options: AuthOptions): Promise<ApiKey> {
  const secret = bearer(request);
  if (secret === null) throw unauthorized('Send your API key as "Authorization: Bearer <API_KEY>".');
  const key = await findUsableKey(request, secret, options);
  if (!key) throw unauthorized('The API key is missing, malformed, unknown, expired or revoked.');
  request.loggedKey = key;
  if (key.status === 'paused') {
    request.validKey = key;
    throw new ApiError(
      'key_paused',
      'This key was paused for unusual activity. A person who manages API keys must resume it in the developer settings; retrying will not help.',
    );
  }
  // Refused as a bad key is: no allowance told or spent, and counted against the address.
  if (!addressAllowed(key.allowedIps, request.ip))
    throw new ApiError('forbidden', `This key may not be used from ${request.ip}.`);
  request.validKey = key;
  return key;
}

function accept(request: FastifyRequest, key: ApiKey, clock: Clock): void {
  request.key = key;
  request.actor = keyActor(key, request.id, clock);
}

export const auth = fp(async (app: FastifyInstance, options: AuthOptions) => {
  app.decorateRequest('key', null);
  app.decorateRequest('actor', null);
  app.decorateRequest('validKey', null);
  app.decorateRequest('loggedKey', null);
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (access?.kind === 'public') return;
    if (!access) {
      // No route matched: the answer is a plain 404 or 405 (problems.ts). A valid key is
      // still told its allowance, and counted when active (SPEC "Limits" 2: every answer);
      // anything else gets the plain answer, without a 401 and without a lookup for a
      // malformed key.
      const found = await findUsableKey(request, bearer(request), options);
      const key = found && addressAllowed(found.allowedIps, request.ip) ? found : null;
      request.loggedKey = found;
      request.validKey = key;
      if (key && key.status === 'active') accept(request, key, options.clock);
      return;
    }
    let key: ApiKey;
    try {
      key = await authenticate(request, options);
    } catch (err) {
      if (err instanceof ApiError && REFUSALS.has(err.code))
        await options.onRefused?.(request, err.code !== 'key_paused');
      throw err;
    }
    accept(request, key, options.clock);
  });
});
