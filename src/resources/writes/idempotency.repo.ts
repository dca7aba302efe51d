import type { Transaction } from 'kysely';
import type { Database, IdempotencyKeyTable, Queryable } from '../../db/schema.ts';
import { IDEMPOTENCY_TTL_MS, type IdempotencyClaim, type StoredAnswer } from './idempotency.model.ts';

/** The stored answer of a live (under 24 hours old) Idempotency-Key, if any. */
export async function findAnswer(
  db: Queryable,
  claim: IdempotencyClaim,
  now: number,
): Promise<IdempotencyKeyTable | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('key_id', '=', claim.keyId)
    .where('idempotency_key', '=', claim.key)
    .where('created_at', '>=', now - IDEMPOTENCY_TTL_MS)
    .executeTakeFirst();
}

/** An answer older than 24 hours no longer counts, even before the purge job removes it. */
export async function dropExpiredAnswer(
  tx: Transaction<Database>,
  claim: IdempotencyClaim,
  now: number,
): Promise<void> {
  await tx
    .deleteFrom('idempotency_keys')
    .where('key_id', '=', claim.keyId)
    .where('idempotency_key', '=', claim.key)
    .where('created_at', '<', now - IDEMPOTENCY_TTL_MS)
    .execute();
}

export async function saveAnswer(
  tx: Transaction<Database>,
  claim: IdempotencyClaim,
  answer: StoredAnswer,
  now: number,
): Promise<void> {
  await tx
    .insertInto('idempotency_keys')
    .values({
      key_id: claim.keyId,
      idempotency_key: claim.key,
      workspace_id: claim.workspaceId,
      fingerprint: claim.fingerprint,
      status_code: answer.status,
      content_type: answer.contentType,
      headers: JSON.stringify(answer.headers),
      body: answer.body,
      request_id: claim.requestId,
      created_at: now,
    })
    .execute();
}

/**
 * One batch of expired stored answers, picked by primary key: a key that sent thousands of
 * requests in a day still loses them `limit` rows at a time, not in one statement.
 */
export async function deleteAnswersBefore(db: Queryable, before: number, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('key_id', 'idempotency_key'),
        'in',
        selectFrom('idempotency_keys')
          .select(['key_id', 'idempotency_key'])
          .where('created_at', '<', before)
          .limit(limit)
          .$asTuple('key_id', 'idempotency_key'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
