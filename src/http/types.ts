import type { Actor } from '../resources/actor.model.ts';
import type { ApiKey, Collection, WritePermission } from '../resources/keys/key.model.ts';
import type { IdempotencyClaim } from '../resources/writes/idempotency.model.ts';
import type { WritePipeline } from '../resources/writes/write.pipeline.ts';

/** What a route declares about who may call it; checked before the body is read. */
export type RouteAccess =
  | { kind: 'public' }
  | { kind: 'any-key' }
  | { kind: 'read'; collection: Collection }
  | { kind: 'write'; permission: WritePermission };

declare module 'fastify' {
  interface FastifyRequest {
    /** The calling key, once auth accepted it (the limits and access checks read it). */
    key: ApiKey | null;
    /** The same caller as the services see it (src/resources/actor.model.ts). */
    actor: Actor | null;
    /** A POST's hold on its Idempotency-Key, set before the body is validated. */
    idempotency: IdempotencyClaim | null;
  }
  interface FastifyInstance {
    /** The one write pipeline (src/resources/writes/write.pipeline.ts). */
    writes: WritePipeline;
    /** Problem `type` is `${errorsUrl}#<code>` (config ERRORS_URL). */
    errorsUrl: string;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}
