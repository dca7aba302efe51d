import { type Compilable, type RawBuilder, type SqlBool, sql } from 'kysely';
import { type Param, rawQuery } from '../../db/prepared.ts';
import type { Queryable } from '../../db/schema.ts';
import type { ChangeLogTable, IdempotencyKeyTable } from '../../db/tables/change.ts';
import type { WebhookEventTable } from '../../db/tables/webhook.ts';
import { previousAttributes } from '../webhook-events/customer-events.ts';
import { deliveriesOf } from '../webhook-events/event.repo.ts';
import { type ClaimFound, type ClaimRow, claimFound, claimQuery } from './idempotency.repo.ts';

/**
 * A write whose change is one INSERT or UPDATE, as one PostgreSQL statement: a POST's claim,
 * the change, its change-log row, stored answer, event and deliveries in one WITH, which
 * PostgreSQL runs atomically without BEGIN and COMMIT (write.pipeline.ts PlannedWrite).
 */

/** Where the written record goes in a text of the tail (the stored answer's body, an event's payload). */
export const RECORD = '\u0000record\u0000';
/** Where an update's `previous_attributes` go in its event's payload. */
export const PREVIOUS = '\u0000previous\u0000';

const MARKS: Record<string, string> = { [RECORD]: 'record', [PREVIOUS]: 'previous' };
const MARK = new RegExp(`${RECORD}|${PREVIOUS}`, 'g');
const marked = (value: unknown): value is string =>
  typeof value === 'string' && (value.includes(RECORD) || value.includes(PREVIOUS));

/** A POST's key: its transaction lock (lockKey), the key, and its answer to store (RECORD in its body). */
export interface AtOnceClaim {
  lock: string;
  keyId: string;
  key: string;
  answer: IdempotencyKeyTable;
}

/** The tail's rows, as the transaction would write them, with RECORD and PREVIOUS where they go. */
export interface AtOnceParts {
  claim: AtOnceClaim | null;
  change: ChangeLogTable;
  /** Its event, if it makes one. */
  event: WebhookEventTable | undefined;
  /** An update's record before the change, whose changed members are its event's `previous_attributes`. */
  before: string | null;
}

/**
 * What the statement found (ClaimFound: held, with nothing stored, without a claim) and wrote:
 * the record only if the change wrote a row.
 */
export interface AtOnceFound extends ClaimFound {
  /** The record the change returned (as a GET shows it). */
  record: string | undefined;
  deliveries: number;
}

export type AtOnceRow = Partial<ClaimRow> & { record: string | null; deliveries: number | string };

/** The change, returning the record as `record`; `free` is true only when a claim holds the key and found no answer. */
export type AtOnceChange = (free: RawBuilder<SqlBool>) => Compilable<{ record: string }>;

/** A row's columns, each with the marks its text holds, in order. */
type RowShape = [column: string, marks: string[]][];
interface Shape {
  claim: boolean;
  before: boolean;
  change: RowShape;
  answer: RowShape | null;
  event: RowShape | null;
}

function rowShape(row: object): RowShape {
  return Object.entries(row).map(([column, value]) => [
    column,
    typeof value === 'string' ? (value.match(MARK) ?? []).map((mark) => MARKS[mark]!) : [],
  ]);
}

/** The statement's shape: a PreparedQuery compiles one per shape. */
export function atOnceShape({ claim, change, event, before }: AtOnceParts): string {
  const shape: Shape = {
    claim: claim !== null,
    before: before !== null,
    change: rowShape(change),
    answer: claim && rowShape(claim.answer),
    event: event ? rowShape(event) : null,
  };
  return JSON.stringify(shape);
}

/** The statement's values, the change's own (`own`) with them; a text with marks goes as the pieces between them. */
export function atOnceParams(parts: AtOnceParts, own: Record<string, unknown>): Record<string, unknown> {
  const params: Record<string, unknown> = { ...own };
  const add = (prefix: string, row: object) => {
    for (const [column, value] of Object.entries(row)) {
      if (marked(value)) {
        for (const [i, piece] of value.split(MARK).entries()) params[`${prefix}.${column}.${i}`] = piece;
      } else params[`${prefix}.${column}`] = value;
    }
  };
  if (parts.claim) {
    const { lock, keyId, key, answer } = parts.claim;
    Object.assign(params, { lock, keyId, key });
    add('a', answer);
  }
  if (parts.before !== null) params.before = parts.before;
  add('c', parts.change);
  if (parts.event) add('e', parts.event);
  return params;
}

/** The found row as AtOnceFound. */
export function atOnceFound(row: AtOnceRow | undefined): AtOnceFound {
  if (!row) throw new Error('the statement answers one row');
  const { record, deliveries, ...claim } = row;
  const found = claim.held === undefined ? { held: true, stored: undefined } : claimFound(claim as ClaimRow);
  return { ...found, record: record ?? undefined, deliveries: Number(deliveries) };
}

/**
 * The statement for `change` with the tail of `shape` (atOnceShape). A claim reads the key's
 * answer in the statement's snapshot, which may predate the lock: an answer committed in
 * between makes the stored answer's INSERT fail on the key's primary key, and with it the
 * whole statement, as the transaction's way does (idempotency.repo.ts claimKey).
 */
export function atOnceStatement(
  db: Queryable,
  param: Param<Record<string, unknown>>,
  shapeText: string,
  change: AtOnceChange,
): Compilable<AtOnceRow> {
  const shape = JSON.parse(shapeText) as Shape;
  const value = (prefix: string, [column, marks]: RowShape[number]) => {
    if (marks.length === 0) return sql`${param(`${prefix}.${column}`)}`;
    const pieces = [sql`${param(`${prefix}.${column}.0`)}`];
    for (const [i, mark] of marks.entries())
      pieces.push(sql.ref(`shown.${mark}`), sql`${param(`${prefix}.${column}.${i + 1}`)}`);
    return sql`(${sql.join(pieces, sql` || `)})`;
  };
  // A row's INSERT, once the change wrote its record: nothing when it wrote none.
  const rowOf = (table: string, prefix: string, row: RowShape) =>
    sql`insert into ${sql.table(table)} (${sql.join(row.map(([column]) => sql.ref(column)))})
      select ${sql.join(row.map((column) => value(prefix, column)))} from shown`;
  const free = shape.claim
    ? sql<SqlBool>`exists (select from claim where claim.held and claim.key_id is null)`
    : sql<SqlBool>`true`;
  const previous = shape.before
    ? previousAttributes(db, sql`${param('before')}`, sql.ref('written.record'))
    : sql`null`;
  const parts: RawBuilder<unknown>[] = [];
  // Kysely puts a SELECT it embeds in parentheses of its own.
  if (shape.claim)
    parts.push(sql`claim as ${claimQuery(db, param as Param<{ lock: string; keyId: string; key: string }>)}`);
  parts.push(
    sql`written as (${change(free)})`,
    sql`shown as (select written.record, ${previous} as previous from written)`,
  );
  if (shape.answer) parts.push(sql`answer as (${rowOf('idempotency_keys', 'a', shape.answer)})`);
  parts.push(sql`changes as (${rowOf('change_log', 'c', shape.change)})`);
  let deliveries = sql`0`;
  if (shape.event) {
    parts.push(
      sql`new_events as (${rowOf('webhook_events', 'e', shape.event)} returning *)`,
      sql`made as (${deliveriesOf(sql`new_events`)} returning 1)`,
    );
    deliveries = sql`(select count(*) from made)`;
  }
  const [found, from] = shape.claim ? [sql`claim.*,`, sql`claim`] : [sql``, sql`(select) as one`];
  const query = sql<AtOnceRow>`with ${sql.join(parts)}
    select ${found} shown.record, ${deliveries} as deliveries from ${from} left join shown on true`;
  return rawQuery(db, query);
}
