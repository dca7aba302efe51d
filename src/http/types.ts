import type { ApiKey, Collection, WritePermission } from '../resources/keys/key.model.ts';

/** What a route declares about who may call it; checked before the body is read. */
export type RouteAccess =
  | { kind: 'public' }
  | { kind: 'any-key' }
  | { kind: 'read'; collection: Collection }
  | { kind: 'write'; permission: WritePermission };

/** The caller, as the services see it (no Fastify types past this point). */
export interface RequestScope {
  workspaceId: string;
  /** false: the key sees and writes only test rows of test-aware collections. */
  livemode: boolean;
  key: ApiKey;
  requestId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    scope: RequestScope | null;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}
