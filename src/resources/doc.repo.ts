import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { DocTable } from '../db/doc-rows.ts';
import type { Database, Queryable } from '../db/schema.ts';
import { invalid } from '../errors.ts';
import { parseInstantWithOffset } from '../lib/time.ts';
import type { Scope } from './actor.model.ts';
import type { PagePlan } from './paging.model.ts';
import { pageQuery } from './paging.repo.ts';

/**
 * The read-only collections the platform owns keep each record as JSON in `data`, beside
 * the columns their filters need. Every query here is scoped by workspace (and mode).
 */
export type { DocTable };

/**
 * shared: one copy for every key (venues, activities…); mode: test rows for test keys
 * (bookings, orders); live-only: real records only, a test key sees none (tickets, gift cards).
 */
export type ModeRule = 'shared' | 'mode' | 'live-only';

// biome-ignore lint/suspicious/noExplicitAny: a filter applies to whichever doc table it is declared on
type AnyEb = ExpressionBuilder<Database, any>;
// biome-ignore lint/suspicious/noExplicitAny: the raw query value, already validated by the route's schema
export type FilterFn = (eb: AnyEb, value: any) => Expression<SqlBool>;

export interface DocRow {
  id: string;
  created_at: number;
  updated_at: number;
  data: string;
  livemode?: number;
}

export const eq =
  (column: string): FilterFn =>
  (eb, value) =>
    eb(sql.ref(column), '=', value);

/** Matches when any of the columns equals the value (a gift card's holder or buyer). */
export const anyEq =
  (...columns: string[]): FilterFn =>
  (eb, value) =>
    eb.or(columns.map((column) => eb(sql.ref(column), '=', value)));

/**
 * An instant parameter, ISO 8601 with an offset like `updated_since` (SPEC "Rules common"
 * 2). The raw query value stays the cursor's binding; only the condition reads it parsed.
 */
export function instantFilter(column: string, op: '>=' | '<', param: string): FilterFn {
  return (eb, value: string) => {
    const ms = parseInstantWithOffset(value);
    if (ms === null) {
      throw invalid(`${param} must be an ISO 8601 instant with an offset, e.g. 2026-10-08T09:00:00+10:00.`, [
        { field: param, message: 'must be ISO 8601 with an offset' },
      ]);
    }
    return eb(sql.ref(column), op, ms);
  };
}

function scoped(db: Queryable, table: DocTable, mode: ModeRule, scope: Scope) {
  let query = db
    .selectFrom(table as 'venues')
    .select(['id', 'created_at', 'updated_at', 'data'])
    .where(`${table}.workspace_id` as 'venues.workspace_id', '=', scope.workspaceId);
  if (mode === 'mode') {
    query = query
      .select(sql<number>`livemode`.as('livemode'))
      .where(sql.ref(`${table}.livemode`), '=', scope.livemode ? 1 : 0);
  }
  return query;
}

/** One page of rows (one past the page, see finishPage), with the filters given applied. */
export async function pageDocRows(
  db: Queryable,
  spec: { table: DocTable; mode: ModeRule },
  scope: Scope,
  plan: PagePlan,
  conditions: { filter: FilterFn; value: unknown }[],
): Promise<DocRow[]> {
  let query = scoped(db, spec.table, spec.mode, scope);
  for (const { filter, value } of conditions) query = query.where((eb) => filter(eb, value));
  return (await pageQuery(query, spec.table, plan).execute()) as DocRow[];
}

export async function findDocRow(
  db: Queryable,
  spec: { table: DocTable; mode: ModeRule },
  scope: Scope,
  id: string,
): Promise<DocRow | undefined> {
  return (await scoped(db, spec.table, spec.mode, scope)
    .where(`${spec.table}.id` as 'venues.id', '=', id)
    .executeTakeFirst()) as DocRow | undefined;
}
