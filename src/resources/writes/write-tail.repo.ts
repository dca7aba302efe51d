import { type RawBuilder, sql } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import { PreparedQuery, rawQuery } from '../../db/prepared.ts';
import type { Tx } from '../../db/schema.ts';
import type { ChangeLogTable, IdempotencyKeyTable } from '../../db/tables/change.ts';
import type { WebhookEventTable } from '../../db/tables/webhook.ts';
import { insertChangeRows } from '../changes/change-log.repo.ts';
import { deliveriesOf, insertEvents } from '../webhook-events/event.repo.ts';
import { saveAnswer, storing } from './idempotency.repo.ts';

/** What a write leaves beside its own rows: its change-log rows, its events and a POST's stored answer. */
export interface Tail {
  changes: readonly ChangeLogTable[];
  events: readonly WebhookEventTable[];
  answer: IdempotencyKeyTable | null;
}

/** A request's write has a row or two of each; a larger tail (an undo's) goes as separate statements. */
const MOST_IN_ONE = 4;

/**
 * Writes the tail in the write's transaction; answers how many deliveries its events made.
 * PostgreSQL takes it as one statement, its INSERTs in a WITH: one round trip, not four.
 */
export async function writeTail(
  tx: Tx,
  engine: Pick<Engine, 'insertsInWith' | 'maxInsertRows'>,
  tail: Tail,
): Promise<number> {
  const { changes, events, answer } = tail;
  if (changes.length === 0 && events.length === 0 && answer === null) return 0;
  if (engine.insertsInWith && changes.length <= MOST_IN_ONE && events.length <= MOST_IN_ONE) {
    const [row] = await storing(() => TAIL.execute(tx, paramsOf(tail), shapeOf(tail)));
    return Number(row?.deliveries ?? 0);
  }
  await insertChangeRows(tx, engine, [...changes]);
  const deliveries = await insertEvents(tx, engine, events);
  if (answer) await saveAnswer(tx, answer);
  return deliveries;
}

/** The statement's shape: how many rows of each part, and their columns. */
function shapeOf({ changes, events, answer }: Tail): string {
  const columns = (row: object | null | undefined) => (row ? Object.keys(row).join(',') : '');
  return [changes.length, columns(changes[0]), events.length, columns(events[0]), columns(answer)].join('|');
}

function paramsOf({ changes, events, answer }: Tail): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const add = (prefix: string, row: object) => {
    for (const [column, value] of Object.entries(row)) params[`${prefix}.${column}`] = value;
  };
  for (const [i, row] of changes.entries()) add(`c${i}`, row);
  for (const [i, row] of events.entries()) add(`e${i}`, row);
  if (answer) add('a0', answer);
  return params;
}

const TAIL = new PreparedQuery<Record<string, unknown>, { deliveries: number | string }>((db, param, shape) => {
  const [changes, changeColumns, events, eventColumns, answerColumns] = shape.split('|') as [string, ...string[]];
  const rows = (prefix: string, n: number, columns: string) =>
    Array.from({ length: n }, (_, i) =>
      Object.fromEntries(columns.split(',').map((column) => [column, param(`${prefix}${i}.${column}`)])),
    );
  const parts: RawBuilder<unknown>[] = [];
  if (Number(changes) > 0)
    parts.push(
      sql`changes as (${db.insertInto('change_log').values(rows('c', Number(changes), changeColumns!) as never)})`,
    );
  if (answerColumns)
    parts.push(sql`answer as (${db.insertInto('idempotency_keys').values(rows('a', 1, answerColumns)[0] as never)})`);
  if (Number(events) === 0) return rawQuery(db, sql`with ${sql.join(parts)} select 0 as deliveries`);
  const inserted = db
    .insertInto('webhook_events')
    .values(rows('e', Number(events), eventColumns!) as never)
    .returningAll();
  parts.push(sql`new_events as (${inserted})`, sql`made as (${deliveriesOf(sql`new_events`)} returning 1)`);
  return rawQuery(db, sql`with ${sql.join(parts)} select count(*) as deliveries from made`);
});
