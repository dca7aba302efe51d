import type { ApiKey } from 'venue-api-client';
import type { ApiDocument, Failure } from './api-document.ts';
import type { VenueApi } from './calls.ts';

/**
 * What the tools are built from: the calling key as `GET /key` describes it (what it may
 * read and write, its page sizes) and the API's own document (api-document.ts).
 */
export type KeyObject = ApiKey;

export interface Profile {
  key: KeyObject;
  document: ApiDocument;
}

/** `GET /key`, the one call that tells whether the key works at all. */
export async function loadKey(
  api: VenueApi,
): Promise<{ kind: 'ok'; key: KeyObject } | { kind: 'error'; result: Failure }> {
  const res = await api.read('/key');
  if (res.kind !== 'ok') return { kind: 'error', result: res };
  if (!isKeyObject(res.body)) {
    return {
      kind: 'error',
      result: { kind: 'failed', message: 'GET /key answered something that is not a key object.' },
    };
  }
  return { kind: 'ok', key: res.body };
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
