import { webhooksDocument } from '../resources/webhook-events/event.schema.ts';
import swagger from '@fastify/swagger';
import { OptionalKind, Type, TypeGuard, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { guides } from './guides.ts';
import { OPERATION_DOCS } from './openapi-examples.ts';
import { ACCEPTED_VERSIONS, CURRENT_VERSION } from './request-context.ts';
import { documentedErrors, operationOf, shareErrorResponses } from './openapi-errors.ts';
import { nameSchemas } from './openapi-schemas.ts';

/**
 * OpenAPI 3.1 built by @fastify/swagger from the route schemas themselves, the same
 * TypeBox objects that validate requests and serialise answers (CONVENTIONS 8).
 * The headers the plugins (not the route schemas) read are added here, for the document
 * only: Idempotency-Key is required on every POST, but its absence is a 428 answered by
 * the idempotency plugin, not a 400 from schema validation.
 */
/** If-Match: `*`, or one or more ETags of versions (src/http/if-match.ts); If-None-Match: any ETags. */
const IF_MATCH = '^\\s*(\\*|(W/)?"\\d{1,15}"(\\s*,\\s*(W/)?"\\d{1,15}")*)\\s*$';
const ENTITY_TAGS = '^\\s*(\\*|(W/)?"[^"]*"(\\s*,\\s*(W/)?"[^"]*")*)\\s*$';

/** Query parameters that are instants: the document says so (the server parses them itself). */
const INSTANT_PARAMS = new Set(['updated_since', 'created_since', 'scheduled_from', 'scheduled_to']);

function withInstantFormats(querystring: { properties?: Record<string, object> }) {
  const properties = Object.entries(querystring.properties ?? {}).map(([name, schema]) => [
    name,
    INSTANT_PARAMS.has(name) ? { ...schema, format: 'date-time' } : schema,
  ]);
  return { ...querystring, properties: Object.fromEntries(properties) };
}

/**
 * Every operation's tag, declared once at the top in the order the operations first use them,
 * described by the first sentence of its first operation's description.
 */
function declareTags<D extends object>(doc: D): D {
  const paths = (doc as { paths?: Record<string, Record<string, { tags?: string[]; description?: string }>> }).paths;
  const tags = new Map<string, string>();
  for (const op of Object.values(paths ?? {}).flatMap((methods) => Object.values(methods))) {
    for (const name of op.tags ?? []) {
      if (!tags.has(name)) tags.set(name, /^[^\n]*?\.(?=\s|$)/.exec(op.description ?? '')?.[0] ?? name);
    }
  }
  return { ...doc, tags: [...tags].map(([name, description]) => ({ name, description })) };
}

/** A created customer's id leads to its retrieve, update and delete (for stateful testers and generators). */
function customerLinks<D extends object>(doc: D): D {
  const paths = (doc as { paths?: Record<string, Record<string, { responses?: Record<string, object> }>> }).paths;
  const created = paths?.['/customers']?.post?.responses?.['201'] as Record<string, unknown> | undefined;
  if (created) {
    const id = { id: '$response.body#/id' };
    created.links = {
      RetrieveCustomer: { operationId: 'retrieveCustomer', parameters: id, description: 'The customer made.' },
      UpdateCustomer: { operationId: 'updateCustomer', parameters: id, description: 'Change the customer made.' },
      DeleteCustomer: { operationId: 'deleteCustomer', parameters: id, description: 'Delete the customer made.' },
    };
  }
  return doc;
}

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
      minLength: 1,
      maxLength: 255,
      description: 'Required on every POST (428 without it). Reuse only to retry the same request; kept 24 hours.',
    });
  }
  if (methods.includes('PATCH')) {
    headers['if-match'] = Type.Optional(
      Type.String({
        pattern: IF_MATCH,
        description: "The ETag, or the record's version in double quotes. Stale: 412, nothing written.",
      }),
    );
  }
  if (methods.includes('GET') && route.url.includes(':id')) {
    headers['if-none-match'] = Type.Optional(
      Type.String({ pattern: ENTITY_TAGS, description: 'The ETag of a copy you hold: 304 if unchanged.' }),
    );
  }
  return headers;
}

/**
 * A route's own header schema (what it validates) gives the description; the documented one
 * keeps its constraints (pattern, minLength) and whether it is required, which the plugins decide.
 */
function mergeHeaders(documented: Record<string, TSchema>, own: Record<string, TSchema>): Record<string, TSchema> {
  const names = new Set([...Object.keys(documented), ...Object.keys(own)]);
  return Object.fromEntries(
    [...names].map((name) => {
      const doc = documented[name];
      const mine = own[name];
      // If-Match on the POSTs that take it (tag and list additions) has the pattern it has on PATCH.
      if (!doc && name === 'if-match') return [name, { ...mine, pattern: IF_MATCH }];
      if (!doc || !mine) return [name, (doc ?? mine)!];
      const { [OptionalKind]: _optional, ...merged } = {
        ...mine,
        ...doc,
        description: mine.description ?? doc.description,
      };
      return [name, TypeGuard.IsOptional(doc) ? Type.Optional(merged as TSchema) : (merged as TSchema)];
    }),
  );
}

const header = (description: string, schema: object = { type: 'string' }) => ({ ...schema, description });

/** The response headers the plugins set, per answer (DECISIONS "HTTP and errors", "Limits"). */
function documentedResponseHeaders(route: RouteOptions, status: string): Record<string, object> {
  const access = (route.config as { access?: { kind: string } } | undefined)?.access;
  const methods = ([] as string[]).concat(route.method);
  const headers: Record<string, object> = {
    'Request-Id': header('`req_…`: quote it when reporting a failure.'),
    'Service-Version': header('The version that served the request.'),
    'Cache-Control': header('Always `no-store`.'),
  };
  // Every answer to a valid key; a 401 has no key to describe (src/http/rate-limit.ts).
  if (access && access.kind !== 'public' && status !== '401') {
    headers['RateLimit-Policy'] = header('`"default";q=<requests per minute>;w=60`: the key\'s per-minute allowance.');
    headers['RateLimit'] = header('`"default";r=<left this minute>;t=<seconds to reset>`.');
  }
  // Every answer that is one customer or record carries its version; a deleted customer has none.
  const answersRecord = route.url.includes(':id') && !(methods.includes('DELETE') && route.url === '/customers/:id');
  if (status.startsWith('2') && route.url !== '/test-data' && (answersRecord || methods.includes('POST'))) {
    headers['ETag'] = header('`"<version>"` of the record answered.');
  }
  if (status.startsWith('2') && methods.includes('POST')) {
    headers['Idempotent-Replayed'] = header(
      '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
    );
    headers['Original-Request'] = header(
      "On a replay: the `req_…` of the request that made the stored answer (its body's request_id, on an error).",
    );
  }
  const retryAfter: Record<string, string> = {
    '429': 'Whole seconds until the limit that refused resets.',
    '503': 'Whole seconds to wait before retrying.',
    ...(methods.includes('POST')
      ? { '409': 'When the same Idempotency-Key is still running: seconds to wait before retrying it.' }
      : {}),
  };
  if (retryAfter[status]) headers['Retry-After'] = header(retryAfter[status], { type: 'integer' });
  if (status === '401') headers['WWW-Authenticate'] = header('`Bearer`.');
  if (status.startsWith('4') && methods.includes('POST'))
    headers['Original-Request'] = header('On a replayed refusal: the request that made it.');
  return headers;
}

export async function registerOpenApi(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Venue Workspace REST API',
        version: CURRENT_VERSION,
        description: guides(baseUrl),
        contact: { name: 'The reference and its guides', url: `${baseUrl}/docs` },
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'vw_test_… or vw_live_…' } },
      },
      security: [{ apiKey: [] }],
    },
    transformObject: (document) =>
      'openapiObject' in document
        ? nameSchemas(
            declareTags(
              customerLinks({ ...shareErrorResponses(document.openapiObject), webhooks: webhooksDocument() }),
            ),
          )
        : {},
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      if (!schema) return { schema: schema as FastifySchema, url };
      const response = (schema as { response?: Record<string, object> }).response;
      const documented: Record<string, unknown> = { ...schema };
      const method = ([] as string[]).concat(route.method)[0];
      const doc = OPERATION_DOCS[`${method} ${route.url}`];
      if (doc) documented.operationId = doc.operationId;
      // A one-element `examples` becomes the media type's `example` (@fastify/swagger).
      const body = (schema as { body?: object }).body;
      if (body && doc?.request !== undefined) documented.body = { ...body, examples: [doc.request] };
      if (response) {
        // The routes declare 4xx and 5xx as any problem (the serialiser needs no more); for
        // an operation with a key, the document lists each status it can answer instead.
        const op = operationOf(route, schema);
        const declared = Object.entries(response).filter(([status]) => !op || status[0] === '2' || status[0] === '3');
        documented.response = {
          ...Object.fromEntries(
            declared.map(([status, r]) => [
              status,
              {
                ...r,
                ...(status.startsWith('2') && doc ? { examples: [doc.response] } : {}),
                headers: documentedResponseHeaders(route, status),
              },
            ]),
          ),
          ...(op ? documentedErrors(op, (status) => documentedResponseHeaders(route, status)) : {}),
        };
      }
      const querystring = (schema as { querystring?: { properties?: Record<string, object> } }).querystring;
      if (querystring) documented.querystring = withInstantFormats(querystring);
      const headers = documentedHeaders(route);
      if (headers) {
        const existing = (schema as { headers?: { properties?: Record<string, TSchema> } }).headers?.properties ?? {};
        documented.headers = Type.Object(mergeHeaders(headers, existing));
      }
      return { schema: documented as FastifySchema, url };
    },
  });
}

export async function openApiRoute(app: FastifyInstance) {
  app.get('/openapi.json', { config: { access: { kind: 'public' } }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
