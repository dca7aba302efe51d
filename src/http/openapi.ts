import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { CURRENT_VERSION } from './request-context.ts';

/**
 * OpenAPI 3.1 built by @fastify/swagger from the route schemas themselves, the same
 * TypeBox objects that validate requests and serialise answers (CONVENTIONS 8).
 */
export async function registerOpenApi(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Venue Workspace REST API',
        version: CURRENT_VERSION,
        description: 'A venue business workspace\'s data for programs and software agents. See SPEC.md.',
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'vw_test_… or vw_live_…' } },
      },
      security: [{ apiKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
}

export async function openApiRoute(app: FastifyInstance) {
  app.get(
    '/openapi.json',
    { config: { access: { kind: 'public' } }, schema: { hide: true } },
    async () => app.swagger(),
  );
}
