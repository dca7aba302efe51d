import type { ApiResult, VenueApi } from './api.ts';

/**
 * What the tools are built from: the calling key as `GET /key` describes it (what it may
 * read and write, its page sizes) and each collection's list filters as `/openapi.json`
 * declares them, so the tools follow the API without a second copy of its routes.
 */
export interface KeyObject {
  id: string;
  mode: string;
  access: string;
  contacts_masked: boolean;
  can_read: string[];
  can_write: string[];
  limits: { page_size_default: number; page_size_max: number } & Record<string, number>;
}

export interface ListFilter {
  name: string;
  description: string;
}

/** Each collection's list filters beyond the common three. */
export type Filters = Record<string, ListFilter[]>;

export interface Profile {
  key: KeyObject;
  filters: Filters;
}

/** Query parameters every list takes (SPEC "Rules common to all endpoints" 2); the tool names them itself. */
const COMMON = new Set(['limit', 'starting_after', 'updated_since']);

/** An answer that is not the one wanted: what the tool that asked reports. */
export type Failure = Exclude<ApiResult, { kind: 'ok' }>;

/** `GET /key`, the one call that tells whether the key works at all. */
export async function loadKey(
  api: VenueApi,
): Promise<{ kind: 'ok'; key: KeyObject } | { kind: 'error'; result: Failure }> {
  const res = await api.call({ method: 'GET', path: '/key' });
  if (res.kind !== 'ok') return { kind: 'error', result: res };
  if (!isKeyObject(res.body)) {
    return {
      kind: 'error',
      result: { kind: 'failed', message: 'GET /key answered something that is not a key object.' },
    };
  }
  return { kind: 'ok', key: res.body };
}

/** Each list path's filters from `/openapi.json` (public, counted against no limit), by collection. */
export async function loadFilters(
  api: VenueApi,
): Promise<{ kind: 'ok'; filters: Filters } | { kind: 'error'; result: Failure }> {
  const res = await api.call({ method: 'GET', path: '/openapi.json' });
  if (res.kind !== 'ok') return { kind: 'error', result: res };
  const paths = (res.body as { paths?: Record<string, { get?: { parameters?: OpenApiParameter[] } }> } | null)?.paths;
  if (!paths) return { kind: 'error', result: { kind: 'failed', message: '/openapi.json has no paths.' } };
  const filters: Filters = {};
  for (const [path, item] of Object.entries(paths)) {
    const collection = /^\/([a-z-]+)$/.exec(path)?.[1];
    if (!collection || !item.get) continue;
    filters[collection] = (item.get.parameters ?? [])
      .filter((p) => p.in === 'query' && typeof p.name === 'string' && !COMMON.has(p.name))
      .map((p) => ({ name: p.name as string, description: typeof p.description === 'string' ? p.description : '' }));
  }
  return { kind: 'ok', filters };
}

interface OpenApiParameter {
  name?: unknown;
  in?: unknown;
  description?: unknown;
}

function isKeyObject(body: unknown): body is KeyObject {
  const k = body as Partial<KeyObject> | null;
  return (
    typeof k?.id === 'string' &&
    Array.isArray(k.can_read) &&
    Array.isArray(k.can_write) &&
    typeof k.limits?.page_size_max === 'number'
  );
}
