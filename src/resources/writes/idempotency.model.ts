import { createHash } from 'node:crypto';
import type { IdempotencyKeyTable } from '../../db/tables/change.ts';
import { ApiError, TransientConflict } from '../../errors.ts';
import { canonicalJson } from '../../lib/canonical-json.ts';

/** The stored answers of POSTs (DECISIONS "Idempotency"): kept 24 hours, then purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY = 255;

/** One request's hold on an Idempotency-Key: whose key, which request, and what it asks. */
export interface IdempotencyClaim {
  /** The API key's id: DECISIONS scopes an Idempotency-Key to the key that sent it. */
  keyId: string;
  key: string;
  workspaceId: string;
  fingerprint: string;
  /** The request that stores the answer; a replay names it as the original. */
  requestId: string;
}

/** An answer as it was sent, byte for byte, so a replay can send it again. */
export interface StoredAnswer {
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: string;
}

/** DECISIONS: method, path and the canonical JSON of the body. */
export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

/** A write's answer: made now, or replayed from the first request with the same key. */
export type Answered =
  | { replayed: false; answer: StoredAnswer }
  | { replayed: true; answer: StoredAnswer; originalRequestId: string };

/** What a request hears while another with its key runs (a 409 it may retry). */
export const STILL_RUNNING = 'A request with this Idempotency-Key is still running; retry after it has been answered.';

/** Which failures are the request's own answer (DECISIONS "Idempotency"): not validation, not transient. */
export function storable(err: unknown): err is ApiError {
  if (!(err instanceof ApiError) || err instanceof TransientConflict) return false;
  return err.status >= 400 && err.status < 500 && err.code !== 'invalid_request';
}

/** The first request's answer again, for a request with its key; another request with the key is refused. */
export function replay(claim: IdempotencyClaim, row: IdempotencyKeyTable): Answered {
  if (row.fingerprint !== claim.fingerprint) {
    throw new ApiError(
      'idempotency_mismatch',
      'This Idempotency-Key was used for another request (method, path or body); use a new key for a new request.',
    );
  }
  const answer: StoredAnswer = {
    status: row.status_code,
    contentType: row.content_type,
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: row.body,
  };
  return { replayed: true, answer, originalRequestId: row.request_id };
}
