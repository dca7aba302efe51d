import { createHash } from 'node:crypto';
import type { IdempotencyKeyTable, Queryable } from '../db/schema.ts';

/** The stored answers of POSTs (DECISIONS "Idempotency"): kept 24 hours, then purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyScope {
  keyId: string;
  key: string;
  workspaceId: string;
  fingerprint: string;
  /** The request storing the answer. */
  requestId: string;
}

export interface StoredAnswer {
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: string;
}

/** JSON with object keys sorted at every depth: the same body, however it was written. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** DECISIONS: method, path and the canonical JSON of the body. */
export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method}\n${path}\n${canonicalJson(body ?? null)}`).digest('hex');
}

export async function findAnswer(db: Queryable, scope: IdempotencyScope, now: number): Promise<IdempotencyKeyTable | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('key_id', '=', scope.keyId)
    .where('idempotency_key', '=', scope.key)
    .where('created_at', '>=', now - IDEMPOTENCY_TTL_MS)
    .executeTakeFirst();
}

/** An answer older than 24 hours no longer counts, even before the purge job removes it. */
export async function dropExpired(tx: Queryable, scope: IdempotencyScope, now: number): Promise<void> {
  await tx
    .deleteFrom('idempotency_keys')
    .where('key_id', '=', scope.keyId)
    .where('idempotency_key', '=', scope.key)
    .where('created_at', '<', now - IDEMPOTENCY_TTL_MS)
    .execute();
}

export async function saveAnswer(tx: Queryable, scope: IdempotencyScope, answer: StoredAnswer, now: number): Promise<void> {
  await tx
    .insertInto('idempotency_keys')
    .values({
      key_id: scope.keyId,
      idempotency_key: scope.key,
      workspace_id: scope.workspaceId,
      fingerprint: scope.fingerprint,
      status_code: answer.status,
      content_type: answer.contentType,
      headers: JSON.stringify(answer.headers),
      body: answer.body,
      request_id: scope.requestId,
      created_at: now,
    })
    .execute();
}

export async function purgeAnswers(db: Queryable, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', now - IDEMPOTENCY_TTL_MS).executeTakeFirst();
  return Number(result.numDeletedRows);
}
