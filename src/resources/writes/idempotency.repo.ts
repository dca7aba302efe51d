import type { Transaction } from 'kysely';
import { type Param, PreparedQuery } from '../../db/prepared.ts';
import type { Engine } from '../../db/dialects/types.ts';
import type { ChangeLogTable, Database, IdempotencyKeyTable, Queryable, Tx } from '../../db/schema.ts';
import { insertChangeRows } from '../changes/change-log.repo.ts';
import { IDEMPOTENCY_TTL_MS, type IdempotencyClaim, type StoredAnswer } from './idempotency.model.ts';

/** The answer stored for a key, however old (see isLive). */
export async function findStoredAnswer(
  db: Queryable,
  claim: IdempotencyClaim,
): Promise<IdempotencyKeyTable | undefined> {
  const [row] = await FIND.execute(db, { keyId: claim.keyId, key: claim.key });
  return row;
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

const DROP = new PreparedQuery<{ keyId: string; key: string }, never>((db, param) =>
  db.deleteFrom('idempotency_keys').where('key_id', '=', param('keyId')).where('idempotency_key', '=', param('key')),
);

/** Removes an expired stored answer, so the key's new answer can be stored in its place. */
export async function dropStoredAnswer(tx: Transaction<Database>, claim: IdempotencyClaim): Promise<void> {
  await DROP.execute(tx, { keyId: claim.keyId, key: claim.key });
}

interface SaveParams {
  keyId: string;
  key: string;
  workspaceId: string;
  fingerprint: string;
  status: number;
  contentType: string;
  headers: string;
  body: string;
  requestId: string;
  now: number;
}

/** The stored answer's row, as both statements that store one insert it. */
const answerRow = (param: Param<SaveParams>) => ({
  key_id: param('keyId'),
  idempotency_key: param('key'),
  workspace_id: param('workspaceId'),
  fingerprint: param('fingerprint'),
  status_code: param('status'),
  content_type: param('contentType'),
  headers: param('headers'),
  body: param('body'),
  request_id: param('requestId'),
  created_at: param('now'),
});

const SAVE = new PreparedQuery<SaveParams, never>((db, param) =>
  db.insertInto('idempotency_keys').values(answerRow(param)),
);

function saveParams(claim: IdempotencyClaim, answer: StoredAnswer, now: number): SaveParams {
  return {
    keyId: claim.keyId,
    key: claim.key,
    workspaceId: claim.workspaceId,
    fingerprint: claim.fingerprint,
    status: answer.status,
    contentType: answer.contentType,
    headers: JSON.stringify(answer.headers),
    body: answer.body,
    requestId: claim.requestId,
    now,
  };
}

export async function saveAnswer(
  tx: Transaction<Database>,
  claim: IdempotencyClaim,
  answer: StoredAnswer,
  now: number,
): Promise<void> {
  await SAVE.execute(tx, saveParams(claim, answer, now));
}

/**
 * The stored answer with the write's one change-log row, one statement
 * (Engine.insertsInWith); the row's columns are the shape, as preparedInsert's.
 */
const SAVE_WITH_CHANGE = new PreparedQuery<SaveParams & Record<`change_${string}`, unknown>, never>(
  (db, param, shape) =>
    db
      .with('change', (w) =>
        w
          .insertInto('change_log')
          .values(Object.fromEntries(shape.split(',').map((c) => [c, param(`change_${c}`)])) as never),
      )
      .insertInto('idempotency_keys')
      .values(answerRow(param)),
);

/**
 * Stores the answer, and the write's change-log rows with it: where the engine can
 * (Engine.insertsInWith) and the write made one change, as one statement, one round trip.
 */
export async function saveAnswerWithChanges(
  tx: Transaction<Database>,
  engine: Engine,
  claim: IdempotencyClaim,
  answer: StoredAnswer,
  now: number,
  changes: ChangeLogTable[],
): Promise<void> {
  const [only] = changes;
  if (!engine.insertsInWith || changes.length !== 1 || only === undefined) {
    await insertChangeRows(tx, changes);
    await saveAnswer(tx, claim, answer, now);
    return;
  }
  const columns = Object.entries(only);
  const params = {
    ...saveParams(claim, answer, now),
    ...Object.fromEntries(columns.map(([c, v]) => [`change_${c}`, v])),
  };
  await SAVE_WITH_CHANGE.execute(tx, params, columns.map(([c]) => c).join(','));
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
