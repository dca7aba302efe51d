import { type Compilable, type Expression, type RawBuilder, sql } from 'kysely';
import { type Param, rawQuery } from '../../db/prepared.ts';
import type { Queryable } from '../../db/schema.ts';
import type { ChangeLogTable, IdempotencyKeyTable } from '../../db/tables/change.ts';
import type { WebhookEventTable } from '../../db/tables/webhook.ts';
import { deliveriesOf } from '../webhook-events/event.repo.ts';
import { type ClaimFound, type ClaimRow, claimFound, claimQuery } from './idempotency.repo.ts';

/**
 * A POST whose change is one INSERT, as one PostgreSQL statement: the key's claim, the INSERT,
 * its change-log row, stored answer, event and deliveries in one WITH, which PostgreSQL runs
 * atomically without BEGIN and COMMIT (write.pipeline.ts runIdempotent).
 */

/** Where the inserted record goes in a text of the tail (the stored answer's body, an event's payload). */
export const RECORD = '\u0000record\u0000';

/** The tail's rows, as the transaction would write them, with RECORD where the record goes. */
export interface AtOnceParts {
  /** The key's transaction lock (lockKey) and the key. */
  lock: string;
  keyId: string;
  key: string;
  change: ChangeLogTable;
  answer: IdempotencyKeyTable;
  /** Its event, if it makes one. */
  event: WebhookEventTable | undefined;
}

/** What the statement found (ClaimFound) and wrote: a record only if it held the key, found no answer and the INSERT wrote. */
export interface AtOnceFound extends ClaimFound {
  /** The record the INSERT returned (as a GET shows it). */
  record: string | undefined;
  deliveries: number;
}

export type AtOnceRow = ClaimRow & { record: string | null; deliveries: number | string };

/** The INSERT, given the select of its values that runs only when the key is free (`claimed`). */
export type AtOnceInsert = (claimed: (values: readonly Expression<unknown>[]) => RawBuilder<unknown>) => Compilable<{
  record: string;
}>;

/** The statement's shape: its rows' columns (a PreparedQuery compiles one per shape). */
export function atOnceShape({ change, answer, event }: AtOnceParts): string {
  return [Object.keys(change).join(','), Object.keys(answer).join(','), event ? Object.keys(event).join(',') : ''].join(
    '|',
  );
}

/** The statement's values, the INSERT's (`own`) with them. */
export function atOnceParams(parts: AtOnceParts, own: Record<string, unknown>): Record<string, unknown> {
  const params: Record<string, unknown> = { ...own, lock: parts.lock, keyId: parts.keyId, key: parts.key };
  const add = (prefix: string, row: object) => {
    for (const [column, value] of Object.entries(row)) {
      if (typeof value === 'string' && value.includes(RECORD)) {
        const at = value.indexOf(RECORD);
        params[`${prefix}.${column}.head`] = value.slice(0, at);
        params[`${prefix}.${column}.tail`] = value.slice(at + RECORD.length);
      } else params[`${prefix}.${column}`] = value;
    }
  };
  add('c', parts.change);
  if (parts.event) add('e', parts.event);
  add('a', parts.answer);
  return params;
}

/** The found row as AtOnceFound. */
export function atOnceFound(row: AtOnceRow | undefined): AtOnceFound {
  if (!row) throw new Error('the statement answers one row');
  const { record, deliveries, ...claim } = row;
  return { ...claimFound(claim), record: record ?? undefined, deliveries: Number(deliveries) };
}

/**
 * The statement for `insert` with the tail of `shape` (atOnceShape). The claim reads the key's
 * answer in the statement's snapshot, which may predate the lock: an answer committed in
 * between makes the stored answer's INSERT fail on the key's primary key, and with it the
 * whole statement, as the transaction's way does (idempotency.repo.ts claimKey).
 */
export function atOnceStatement(
  db: Queryable,
  param: Param<Record<string, unknown>>,
  shape: string,
  insert: AtOnceInsert,
): Compilable<AtOnceRow> {
  const [changeColumns, answerColumns, eventColumns] = shape.split('|') as [string, string, string];
  // A row's INSERT, once the record is written: each value bound, or the record between its two parts.
  const rowOf = (table: string, prefix: string, columns: string[], recordIn = '') => {
    const values = columns.map((column) =>
      column === recordIn
        ? sql`${param(`${prefix}.${column}.head`)} || written.record || ${param(`${prefix}.${column}.tail`)}`
        : sql`${param(`${prefix}.${column}`)}`,
    );
    return sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
      select ${sql.join(values)} from written`;
  };
  const parts: RawBuilder<unknown>[] = [
    // Kysely puts a SELECT it embeds in parentheses of its own.
    sql`claim as ${claimQuery(db, param as Param<{ lock: string; keyId: string; key: string }>)}`,
    sql`written as (${insert((values) => sql`select ${sql.join(values)} from claim where claim.held and claim.key_id is null`)})`,
    sql`answer as (${rowOf('idempotency_keys', 'a', answerColumns.split(','), 'body')})`,
    sql`changes as (${rowOf('change_log', 'c', changeColumns.split(','))})`,
  ];
  let deliveries = sql`0`;
  if (eventColumns) {
    const inserted = rowOf('webhook_events', 'e', eventColumns.split(','), 'payload');
    parts.push(
      sql`new_events as (${inserted} returning *)`,
      sql`made as (${deliveriesOf(sql`new_events`)} returning 1)`,
    );
    deliveries = sql`(select count(*) from made)`;
  }
  const query = sql<AtOnceRow>`with ${sql.join(parts)}
    select claim.*, written.record, ${deliveries} as deliveries from claim left join written on true`;
  return rawQuery(db, query);
}
