import swagger from '@fastify/swagger';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { ACCEPTED_VERSIONS, CURRENT_VERSION } from './request-context.ts';

/**
 * OpenAPI 3.1 built by @fastify/swagger from the route schemas themselves, the same
 * TypeBox objects that validate requests and serialise answers (CONVENTIONS 8).
 * The headers the plugins (not the route schemas) read are added here, for the document
 * only: Idempotency-Key is required on every POST, but its absence is a 428 answered by
 * the idempotency plugin, not a 400 from schema validation.
 */
function documentedHeaders(route: RouteOptions): Record<string, TSchema> | null {
  const access = (route.config as { access?: { kind: string } } | undefined)?.access;
  if (!access || access.kind === 'public') return null;
  const methods = ([] as string[]).concat(route.method);
  const headers: Record<string, TSchema> = {
    'service-version': Type.Optional(
      Type.String({
        enum: [...ACCEPTED_VERSIONS],
        description: `The API version, a date. Absent means the current version ${CURRENT_VERSION}.`,
      }),
    ),
  };
  if (methods.includes('POST')) {
    headers['idempotency-key'] = Type.String({
      maxLength: 255,
      description: 'Required on every POST (428 without it). Reuse only to retry the same request; kept 24 hours.',
    });
  }
  if (methods.includes('PATCH')) {
    headers['if-match'] = Type.Optional(
      Type.String({ description: 'The ETag, or the record\'s version in double quotes. Stale: 412, nothing written.' }),
    );
  }
  if (methods.includes('GET') && route.url.includes(':id')) {
    headers['if-none-match'] = Type.Optional(Type.String({ description: 'The ETag of a copy you hold: 304 if unchanged.' }));
  }
  return headers;
}

export async function registerOpenApi(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Venue Workspace REST API',
        version: CURRENT_VERSION,
        description:
          "A venue business workspace's data for programs and software agents. Every answer carries " +
          '`Request-Id`, `Service-Version` and `Cache-Control: no-store`; authenticated answers carry ' +
          '`RateLimit-Policy` and `RateLimit`; a 429 carries `Retry-After`. Errors are RFC 9457 problem documents.',
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'vw_test_… or vw_live_…' } },
      },
      security: [{ apiKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const headers = documentedHeaders(route);
      if (!headers || !schema) return { schema: schema as FastifySchema, url };
      const existing = ((schema as { headers?: { properties?: Record<string, TSchema> } }).headers?.properties ?? {});
      return { schema: { ...schema, headers: Type.Object({ ...headers, ...existing }) } as FastifySchema, url };
    },
  });
}

export async function openApiRoute(app: FastifyInstance) {
  app.get(
    '/openapi.json',
    { config: { access: { kind: 'public' } }, schema: { hide: true } },
    async () => app.swagger(),
  );
}
