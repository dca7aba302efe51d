import { type Param, PreparedQuery, preparedInsert } from '../../db/prepared.ts';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { IdempotencyKeyTable } from '../../db/tables/change.ts';
import { StaleWrite } from '../../db/stale-write.ts';
import { lockKey, locksAreFree, tryTransactionLock } from '../../db/transaction-lock.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { IDEMPOTENCY_TTL_MS, type IdempotencyClaim, type StoredAnswer } from './idempotency.model.ts';

/** What a POST's claim finds: whether its transaction now holds the key, and the answer stored for it, however old (see isLive). */
export interface ClaimFound {
  held: boolean;
  stored: IdempotencyKeyTable | undefined;
}

/**
 * Takes the key for this transaction and reads its stored answer, one statement. The read's
 * snapshot may predate the lock, so an answer another process committed in between can go
 * unseen; storing this write's answer then fails on the key's primary key, and the write
 * runs again (storing).
 */
export async function claimKey(db: Queryable, claim: IdempotencyClaim, lock: string): Promise<ClaimFound> {
  // SQLite has no lock to take, and plans the plain look-up far better than the join.
  if (locksAreFree(db)) {
    const [found] = await FIND.execute(db, { keyId: claim.keyId, key: claim.key });
    return { held: true, stored: found };
  }
  const [row] = await CLAIM.execute(db, { lock: lockKey(lock), keyId: claim.keyId, key: claim.key });
  if (!row) throw new Error('the claim statement answers one row');
  return claimFound(row);
}

/** What the claim's row says: `held`, and the key's columns, all null when nothing is stored. */
export type ClaimRow = { held: boolean | number } & Nullable<IdempotencyKeyTable>;

export function claimFound({ held, ...stored }: ClaimRow): ClaimFound {
  return { held: Boolean(held), stored: stored.key_id === null ? undefined : (stored as IdempotencyKeyTable) };
}

/** An answer older than 24 hours no longer counts, even before the purge job removes it. */
export function isLive(row: Pick<IdempotencyKeyTable, 'created_at'>, now: number): boolean {
  return Number(row.created_at) >= now - IDEMPOTENCY_TTL_MS;
}

// Every POST runs these: built once (db/prepared.ts), not per request.
const FIND = new PreparedQuery<{ keyId: string; key: string }, IdempotencyKeyTable>((db, param) =>
  db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('key_id', '=', param('keyId'))
    .where('idempotency_key', '=', param('key')),
);
type Nullable<T> = { [K in keyof T]: T[K] | null };
type ClaimParams = { lock: string; keyId: string; key: string };

/** The claim as a query (a part of a larger statement too: write-at-once.repo.ts): one row, ClaimRow. */
export function claimQuery(db: Queryable, param: Param<ClaimParams>) {
  return db
    .selectFrom(db.selectNoFrom(tryTransactionLock(db, param('lock')).as('held')).as('lock'))
    .leftJoin('idempotency_keys', (join) =>
      join.on('idempotency_keys.key_id', '=', param('keyId')).on('idempotency_keys.idempotency_key', '=', param('key')),
    )
    .select('lock.held')
    .selectAll('idempotency_keys');
}

const CLAIM = new PreparedQuery<ClaimParams, ClaimRow>(claimQuery);

const DROP = new PreparedQuery<{ keyId: string; key: string }, never>((db, param) =>
  db.deleteFrom('idempotency_keys').where('key_id', '=', param('keyId')).where('idempotency_key', '=', param('key')),
);

/** Removes an expired stored answer, so the key's new answer can be stored in its place. */
export async function dropStoredAnswer(tx: Tx, claim: IdempotencyClaim): Promise<void> {
  await DROP.execute(tx, { keyId: claim.keyId, key: claim.key });
}

/** A POST's answer as stored under its key. */
export function answerRow(claim: IdempotencyClaim, answer: StoredAnswer, now: number): IdempotencyKeyTable {
  return {
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
  };
}

const SAVE = preparedInsert('idempotency_keys');

/** Stores the answer in the write's transaction (see storing). */
export async function saveAnswer(tx: Tx, row: IdempotencyKeyTable): Promise<void> {
  await storing(() => SAVE(tx, row));
}

/**
 * Stores an answer; the key's primary key refusing it means another process stored one
 * after this transaction's claim read (claimKey): the write rolls back and runs again.
 */
export async function storing<T>(store: () => Promise<T>): Promise<T> {
  try {
    return await store();
  } catch (err) {
    if (isUniqueViolation(err)) throw new StaleWrite();
    throw err;
  }
}

/**
 * One batch of expired stored answers, picked by primary key: a key that sent thousands of
 * requests in a day still loses them `limit` rows at a time, not in one statement.
 */
export async function deleteAnswersBefore(tx: Tx, before: number, limit: number): Promise<number> {
  const result = await tx
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
