import type { ApiResult, VenueApi } from './calls.ts';
import type { JsonSchema } from './json-schema-zod.ts';

/**
 * What the tools take from the API's own `/openapi.json` (public, counted against no limit),
 * read once: each collection's list filters and each write's request body, so the tools
 * follow the API without a second copy of its routes or its customer body.
 */
export interface ListFilter {
  name: string;
  description: string;
}

export interface ApiDocument {
  /** Each collection's list filters beyond the common three. */
  filters: Record<string, ListFilter[]>;
  /** The JSON Schema of each operation's JSON request body, by operationId (createCustomer, …). */
  bodies: Record<string, JsonSchema>;
}

/** An answer that is not the one wanted: what the tool that asked reports. */
export type Failure = Exclude<ApiResult, { kind: 'ok' }>;

/** Query parameters every list takes (SPEC "Rules common to all endpoints" 2); the tool names them itself. */
const COMMON = new Set(['limit', 'starting_after', 'updated_since']);

interface Operation {
  operationId?: string;
  parameters?: Array<{ name?: unknown; in?: unknown; description?: unknown }>;
  requestBody?: { content?: { 'application/json'?: { schema?: JsonSchema } } };
}

export async function loadApiDocument(
  api: VenueApi,
): Promise<{ kind: 'ok'; document: ApiDocument } | { kind: 'error'; result: Failure }> {
  const res = await api.read('/openapi.json');
  if (res.kind !== 'ok') return { kind: 'error', result: res };
  const paths = (res.body as { paths?: Record<string, Record<string, Operation>> } | null)?.paths;
  if (!paths) return { kind: 'error', result: { kind: 'failed', message: '/openapi.json has no paths.' } };
  const document: ApiDocument = { filters: {}, bodies: {} };
  for (const [path, item] of Object.entries(paths)) {
    const collection = /^\/([a-z-]+)$/.exec(path)?.[1];
    if (collection && item.get) {
      document.filters[collection] = (item.get.parameters ?? [])
        .filter((p) => p.in === 'query' && typeof p.name === 'string' && !COMMON.has(p.name))
        .map((p) => ({ name: p.name as string, description: typeof p.description === 'string' ? p.description : '' }));
    }
    for (const operation of Object.values(item)) {
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      if (operation.operationId && schema) document.bodies[operation.operationId] = schema;
    }
  }
  return { kind: 'ok', document };
}
