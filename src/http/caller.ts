import type { FastifyRequest } from 'fastify';
import type { Actor } from '../resources/actor.model.ts';
import type { ApiKey } from '../resources/keys/key.model.ts';

/**
 * The caller of a route that needs a key. Auth runs before every such route and sets both,
 * so a missing one is a bug in the app's wiring, not the client's doing (a 500).
 */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error(`${request.method} ${request.routeOptions.url}: reached without an actor`);
  return request.actor;
}

export function keyOf(request: FastifyRequest): ApiKey {
  if (!request.key) throw new Error(`${request.method} ${request.routeOptions.url}: reached without a key`);
  return request.key;
}
