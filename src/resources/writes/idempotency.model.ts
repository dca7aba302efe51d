import { createHash } from 'node:crypto';
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
