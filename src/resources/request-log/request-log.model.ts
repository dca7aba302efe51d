import type { RequestLogTable } from '../../db/tables/activity.ts';
import { maskRecord } from '../../lib/mask.ts';
import { toInstant } from '../../lib/time.ts';

/**
 * What the request log keeps of a request (DECISIONS "Request log"): its bodies only for a
 * write or an answer of 400 or more, cut at 16 KiB, masked as the key sees records, and never
 * a secret.
 */
export const MAX_BODY_BYTES = 16 * 1024;

const SECRETS = /vw_(?:test|live)_[0-9A-Za-z]+|whsec_[0-9A-Za-z+/=_-]+/g;

/** Anything shaped like a key secret or a webhook secret, replaced. */
export const redactSecrets = (text: string) => text.replace(SECRETS, '[redacted]');

/** Whether a request's bodies are kept. */
export const keepsBodies = (method: string, status: number) =>
  method === 'POST' || method === 'PATCH' || method === 'DELETE' || status >= 400;

const utf8 = new TextEncoder();

/** The first MAX_BODY_BYTES bytes of `text`, never half a character. */
function cut(text: string): { text: string; truncated: boolean } {
  const bytes = utf8.encode(text);
  if (bytes.length <= MAX_BODY_BYTES) return { text, truncated: false };
  // stream: a character split at the cut is held back, not turned into U+FFFD.
  return { text: new TextDecoder().decode(bytes.subarray(0, MAX_BODY_BYTES), { stream: true }), truncated: true };
}

/**
 * A body as stored. A contacts-masked key's request body has its customer contacts masked, as
 * its answers do (the API masks those itself); text that is not JSON is kept as sent.
 */
export function keptBody(text: string | null, contactsMasked: boolean): { text: string | null; truncated: boolean } {
  if (text === null || text === '') return { text: null, truncated: false };
  let shown = text;
  if (contactsMasked) {
    try {
      shown = JSON.stringify(maskRecord('customer', JSON.parse(text) as unknown));
    } catch {
      // Not JSON: nothing in it is a record's contact field.
    }
  }
  return cut(redactSecrets(shown));
}

/** A contacts-masked key's `?email=` (GET /customers) masked in the path it logged. */
export function keptPath(url: string, contactsMasked: boolean): string {
  const path = redactSecrets(url);
  if (!contactsMasked || !path.includes('?')) return path;
  const [base, query] = path.split('?', 2) as [string, string];
  const params = new URLSearchParams(query);
  const email = params.get('email');
  if (email === null) return path;
  params.set('email', maskRecord('customer', { email }).email);
  return `${base}?${params}`;
}

/** A row as the CLI and the console show it (DECISIONS "Request log"). */
export function toRequestObject(
  row: Omit<RequestLogTable, 'request_body' | 'response_body'> & Partial<RequestLogTable>,
) {
  return {
    id: row.id,
    key: row.key_id,
    method: row.method,
    path: row.path,
    status: row.status,
    code: row.code,
    duration_ms: row.duration_ms,
    ip: row.ip,
    user_agent: row.user_agent,
    version: row.version,
    created_at: toInstant(row.created_at)!,
    ...(row.request_body !== undefined
      ? { request_body: row.request_body, response_body: row.response_body ?? null, truncated: row.truncated === 1 }
      : {}),
  };
}
