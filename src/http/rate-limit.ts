import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';
import type { Clock } from '../lib/time.ts';
import {
  reached,
  refusingState,
  secondsUntil,
  type CheckState,
  type Consumption,
  type LimitStore,
} from '../limits/limit-store.ts';
import { describeLimit, refusedKeysCheck, requestChecks } from '../limits/limits.ts';
import type { ApiKey } from '../resources/keys/key.model.ts';

/** The key's per-minute allowance as the RateLimit headers tell it. */
interface Allowance {
  max: number;
  left: number;
  /** Whole seconds until the window resets. */
  reset: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's limit store; subscribe to `limitStore.events` for metrics. */
    limitStore: LimitStore;
  }
  interface FastifyRequest {
    /** The key's per-minute figures once the limit check has run for this request. */
    allowance: Allowance | null;
  }
}

export interface RateLimitOptions {
  store: LimitStore;
  clock: Clock;
}

/** 429 naming the limit and when it frees up (SPEC "Limits" 1, DECISIONS "Limits"). */
function refusal(store: LimitStore, state: CheckState, now: number): ApiError {
  const wait = secondsUntil(state.resetAt, now);
  store.events.emit('rate_limited', state.check.name);
  return new ApiError(
    'rate_limited',
    `Limit reached: ${describeLimit(state.check.name, state.check.max)}. Retry in ${wait} second${wait === 1 ? '' : 's'}.`,
    { limit: state.check.name, headers: { 'Retry-After': String(wait) } },
  );
}

/**
 * Refused keys per address (DECISIONS "Limits"): once an address has had 30 answers of 401
 * in a minute, every request from it is 429 until that minute ends, with a valid key too,
 * so a right guess looks like a wrong one: no RateLimit headers and nothing in the key's
 * request log. Its check is first in each request's one call to the store.
 */
function addressBlocked(request: FastifyRequest, store: LimitStore, result: Consumption, now: number): ApiError | null {
  // A refused call counted nothing, so its counts are those before this request.
  const address = result.states[0]!;
  if (result.allowed || !reached(address)) return null;
  request.validKey = null;
  request.loggedKey = null;
  request.allowance = null;
  return refusal(store, address, now);
}

/**
 * auth's onRefused: a request auth refuses is first held to its address's block, then a bad
 * key (401, or 403 from an address the key does not allow) counts one refused key against
 * the address (request.ip honours TRUST_PROXY); a paused key counts nothing. Throws the 429
 * when the address is blocked.
 */
export function refuseByAddress({ store, clock }: RateLimitOptions) {
  return async (request: FastifyRequest, badKey: boolean): Promise<void> => {
    const now = clock();
    const result = await store.consume([refusedKeysCheck(request.ip, badKey ? 1 : 0)], now);
    const blocked = addressBlocked(request, store, result, now);
    if (blocked) throw blocked;
  };
}

/** auth's beforeLookup: a secret not cached is read from the database only for an address that is not blocked. */
export function holdBlockedAddress(options: RateLimitOptions) {
  const refuse = refuseByAddress(options);
  return (request: FastifyRequest) => refuse(request, false);
}

function allowanceOf(perMinute: CheckState, now: number): Allowance {
  const max = perMinute.check.max;
  return { max, left: Math.max(0, max - perMinute.count), reset: secondsUntil(perMinute.resetAt, now) };
}

/** Its figures now, counting nothing: for a valid key refused before the limit check (key_paused). */
async function currentAllowance(store: LimitStore, key: ApiKey, now: number): Promise<Allowance> {
  // requestChecks puts the key's requests_per_minute first; cost 0 only reads its count.
  const perMinute = { ...requestChecks(key, 'GET')[0]!, cost: 0 as const };
  return allowanceOf((await store.consume([perMinute], now)).states[0]!, now);
}

/**
 * Every limit of a request that is not public, checked and counted in one call to the store
 * (registered after auth, before the version check and access): its address's block, then
 * with an active key the key's and its workspace's limits. The key's per-minute allowance
 * goes in RateLimit-Policy / RateLimit on every answer to a request carrying a valid key,
 * whatever its status and whichever check refused it (SPEC "Limits" 2, DECISIONS "Limits");
 * one onSend sets them, so no answer path can miss them. A 401 has no key to describe.
 */
export const rateLimit = fp(async (app: FastifyInstance, { store, clock }: RateLimitOptions) => {
  app.decorateRequest('allowance', null);
  app.addHook('onRequest', async (request) => {
    // Public routes need no key, so a key-guesser's block must not take down /health or /ready.
    if (request.routeOptions.config.access?.kind === 'public') return;
    const key = request.key;
    const now = clock();
    const address = refusedKeysCheck(request.ip, 0);
    const result = await store.consume(key ? [address, ...requestChecks(key, request.method)] : [address], now);
    const blocked = addressBlocked(request, store, result, now);
    if (blocked) throw blocked;
    if (!key) return;
    request.allowance = allowanceOf(result.states[1]!, now);
    if (!result.allowed) throw refusal(store, refusingState(result)!, now);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const key = request.validKey;
    if (!key) return done(null, payload);
    const tell = ({ max, left, reset }: Allowance) => {
      reply.header('RateLimit-Policy', `"default";q=${max};w=60`);
      reply.header('RateLimit', `"default";r=${left};t=${reset}`);
      done(null, payload);
    };
    // Counted by the limit check: no store call; refused before it (key_paused): read now.
    if (request.allowance) tell(request.allowance);
    else currentAllowance(store, key, clock()).then(tell, done);
  });
});
