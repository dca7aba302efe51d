import type { QueryCreator } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import { PreparedQuery } from '../../db/prepared.ts';
import type { ChangeLogTable, Database, Tx, WebhookEndpointTable } from '../../db/schema.ts';
import type { Scope } from '../actor.model.ts';
import { insertChangeRows } from '../changes/change-log.repo.ts';
import { enabledEndpoints, selectEnabledEndpoints } from '../webhooks/webhook-endpoint.repo.ts';
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
 * The write's one change-log row and, for a POST, its stored answer, in the WITH of the
 * SELECT of the scope's enabled webhook endpoints: one statement (Engine.insertsInWith).
 * Shape: the row's columns, then `|answer` when there is one.
 */
const TAIL = new PreparedQuery<TailParams, WebhookEndpointTable>((db, param, shape) => {
  const [columns = '', answer] = shape.split('|');
  const change = Object.fromEntries(columns.split(',').map((c) => [c, param(c as keyof ChangeLogTable)]));
  // The WITH adds names the look-up never reads, so it is the plain database's query.
  const endpoints = (q: object) =>
    selectEnabledEndpoints(q as QueryCreator<Database>, param('workspaceId'), param('mode'));
  const withChange = db.with('change', (w) => w.insertInto('change_log').values(change as never));
  if (answer !== 'answer') return endpoints(withChange);
  return endpoints(
    withChange.with('answer', (w) => w.insertInto('idempotency_keys').values(answerRow(param as never))),
  );
});

/**
 * A write's last rows, the same step for every write of the pipeline: its change-log rows
 * and, for a POST, the answer stored for its Idempotency-Key. Answers the enabled webhook
 * endpoints of the scope, which take the write's events (none when it changed nothing).
 * Where the engine can and the write made one change, all of it is one statement, one
 * round trip (Engine.insertsInWith); otherwise one statement each.
 */
export async function writeTail(
  tx: Tx,
  engine: Engine,
  scope: Scope,
  rows: readonly ChangeLogTable[],
  stored: AnswerToStore | null,
): Promise<WebhookEndpointTable[]> {
  const [only] = rows;
  if (engine.insertsInWith && rows.length === 1 && only !== undefined) {
    const params: TailParams = Object.assign(
      { workspaceId: scope.workspaceId, mode: scope.livemode ? ('live' as const) : ('test' as const) },
      stored ? saveParams(stored.claim, stored.answer, stored.now) : {},
      only,
    );
    const shape = `${Object.keys(only).join(',')}|${stored ? 'answer' : ''}`;
    const run = () => TAIL.execute(tx, params, shape);
    return stored ? storing(run) : run();
  }
  if (rows.length > 0) await insertChangeRows(tx, [...rows]);
  if (stored) await saveAnswer(tx, stored.claim, stored.answer, stored.now);
  return rows.length > 0 ? enabledEndpoints(tx, scope) : [];
}
