import type { QueryCreator } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import { PreparedQuery } from '../../db/prepared.ts';
import type { Database, Tx } from '../../db/schema.ts';
import type { ChangeLogTable } from '../../db/tables/change.ts';
import type { Scope } from '../actor.model.ts';
import { insertChangeRows } from '../changes/change-log.repo.ts';
import { selectEnabledEndpoints, type EndpointTaker } from '../webhooks/webhook-endpoint.repo.ts';
import { answerRow, saveAnswer, saveParams, storing, type SaveParams } from './idempotency.repo.ts';
import type { IdempotencyClaim, StoredAnswer } from './idempotency.model.ts';

/** A POST's answer, stored under its key with the write. */
export interface AnswerToStore {
  claim: IdempotencyClaim;
  answer: StoredAnswer;
  now: number;
}

// The change-log row's columns (snake_case) and the stored answer's parameters (camelCase), by their own names.
type TailParams = Partial<SaveParams> & { workspaceId: string; mode: 'live' | 'test' } & Partial<ChangeLogTable>;

/**
 * The write's one change-log row (its event in it, if it has one) and, for a POST, its stored
 * answer, in the WITH of the SELECT of the scope's enabled webhook endpoints: one statement
 * (Engine.insertsInWith). Shape: the row's columns, then `|answer` when there is one.
 */
const TAIL = new PreparedQuery<TailParams, EndpointTaker>((db, param, shape) => {
  const [columns = '', answer] = shape.split('|');
  const change = Object.fromEntries(columns.split(',').map((c) => [c, param(c as keyof ChangeLogTable)]));
  let tail = db.with('change', (w) => w.insertInto('change_log').values(change as never));
  if (answer === 'answer')
    tail = tail.with('answer', (w) => w.insertInto('idempotency_keys').values(answerRow(param as never))) as never;
  // The WITH adds names the look-up never reads, so it is the plain database's query.
  return selectEnabledEndpoints(tail as unknown as QueryCreator<Database>, param('workspaceId'), param('mode'));
});

/** Whether a write's last rows go in one statement that also reads the scope's endpoints (writeTail). */
export function tailReadsEndpoints(engine: Engine, rows: readonly ChangeLogTable[]): boolean {
  return engine.insertsInWith && rows.length === 1;
}

/**
 * A write's last rows, the same step for every write of the pipeline: its change-log rows
 * (with their events) and, for a POST, the answer stored for its Idempotency-Key. Where
 * tailReadsEndpoints, all of it is one statement, one round trip, which also answers the
 * scope's enabled webhook endpoints; otherwise one statement each, answering null.
 */
export async function writeTail(
  tx: Tx,
  engine: Engine,
  scope: Scope,
  rows: readonly ChangeLogTable[],
  stored: AnswerToStore | null,
): Promise<EndpointTaker[] | null> {
  const [only] = rows;
  if (tailReadsEndpoints(engine, rows) && only !== undefined) {
    const params: TailParams = Object.assign(
      { workspaceId: scope.workspaceId, mode: scope.livemode ? ('live' as const) : ('test' as const) },
      stored ? saveParams(stored.claim, stored.answer, stored.now) : {},
      only,
    );
    const shape = `${Object.keys(only).join(',')}|${stored ? 'answer' : ''}`;
    const run = () => TAIL.execute(tx, params, shape);
    return stored ? storing(run) : run();
  }
  if (rows.length > 0) await insertChangeRows(tx, engine, [...rows]);
  if (stored) await saveAnswer(tx, stored.claim, stored.answer, stored.now);
  return null;
}
