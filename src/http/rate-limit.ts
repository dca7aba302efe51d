import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.ts';
import type { Clock } from '../lib/time.ts';
import { refusingState, secondsUntil, type Consumption, type LimitStore } from '../limits/limit-store.ts';
import { describeLimit, refusedKeysCheck, requestChecks } from '../limits/limits.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's limit store; subscribe to `limitStore.events` for metrics. */
    limitStore: LimitStore;
  }
}

export interface RateLimitOptions {
  store: LimitStore;
  clock: Clock;
}

/** 429 naming the limit and when it frees up (SPEC "Limits" 1, DECISIONS "Limits"). */
function refusal(store: LimitStore, result: Consumption, now: number): ApiError {
  const state = refusingState(result)!;
  const wait = secondsUntil(state.resetAt, now);
  store.events.emit('rate_limited', state.check.name);
  return new ApiError(
    'rate_limited',
    `Limit reached: ${describeLimit(state.check.name, state.check.max)}. Retry in ${wait} second${wait === 1 ? '' : 's'}.`,
    { limit: state.check.name, headers: { 'Retry-After': String(wait) } },
  );
}

/**
 * Refused keys per address (DECISIONS "Limits"): once an address has had 30 answers of
 * 401 in a minute, every request from it is 429 until that minute ends — with a valid key
 * too, so a right guess looks like a wrong one. Registered before auth.
 */
export const refusedAddressGuard = fp(async (app: FastifyInstance, { store, clock }: RateLimitOptions) => {
  app.addHook('onRequest', async (request) => {
    // Public routes need no key, so a key-guesser's block must not take down /health or /ready.
    if (request.routeOptions.config.access?.kind === 'public') return;
    const now = clock();
    const result = await store.consume([refusedKeysCheck(request.ip, 0)], now);
    if (!result.allowed) throw refusal(store, result, now);
  });
});

/** auth's onRefused: counts one 401 against the caller's address (request.ip honours TRUST_PROXY). */
export function countRefusedKey({ store, clock }: RateLimitOptions) {
  return async (request: FastifyRequest): Promise<void> => {
    await store.consume([refusedKeysCheck(request.ip, 1)], clock());
  };
}

function setRateLimitHeaders(reply: FastifyReply, result: Consumption, now: number): void {
  const perMinute = result.states[0]!; // requestChecks puts the key's requests_per_minute first
  const max = perMinute.check.max;
  reply.header('RateLimit-Policy', `"default";q=${max};w=60`);
  reply.header(
    'RateLimit',
    `"default";r=${Math.max(0, max - perMinute.count)};t=${secondsUntil(perMinute.resetAt, now)}`,
  );
}

/**
 * Every limit of an authenticated request, checked and counted in one step; the key's
 * per-minute allowance in RateLimit-Policy / RateLimit on every authenticated answer,
 * errors included (SPEC "Limits" 2). Registered after auth, before access.
 */
export const rateLimit = fp(async (app: FastifyInstance, { store, clock }: RateLimitOptions) => {
  app.addHook('onRequest', async (request, reply) => {
    const key = request.key;
    if (!key) return;
    const now = clock();
    const result = await store.consume(requestChecks(key, request.method), now);
    setRateLimitHeaders(reply, result, now);
    if (!result.allowed) throw refusal(store, result, now);
  });
});
