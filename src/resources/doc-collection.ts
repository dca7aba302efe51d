import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Database, Queryable } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { isIdOf, type IdKind } from '../lib/ids.ts';
import { toInstant } from '../lib/time.ts';
import type { RequestScope } from '../http/types.ts';
import { emptyPage, finishPage, pageQuery, planPage, type Page, type PageParams } from './paging.ts';

/**
 * One repository for the read-only collections the platform owns. Each keeps its record
 * as JSON in `data` with the columns its filters need; this file scopes every query by
 * workspace (and mode), pages it by keyset and turns rows back into API records.
 */
export type DocTable = 'venues' | 'activities' | 'packages' | 'events' | 'bookings' | 'orders' | 'tickets' | 'gift_cards';

/**
 * shared: one copy for every key (venues, activities…); mode: test rows for test keys
 * (bookings, orders); live-only: real records only, a test key sees none (tickets, gift cards).
 */
export type ModeRule = 'shared' | 'mode' | 'live-only';

type AnyEb = ExpressionBuilder<Database, any>;
export type FilterFn = (eb: AnyEb, value: any) => Expression<SqlBool>;

export interface DocCollection<F extends Record<string, unknown>, R> {
  table: DocTable;
  /** The `object` value and the cursor's binding. */
  object: string;
  idKind: IdKind;
  mode: ModeRule;
  /** Query parameter -> condition. Parameters absent from the request add nothing. */
  filters: { [K in keyof F]-?: FilterFn };
  /** Last touch on a record before it is sent (masking contacts, say). */
  present?: (record: R, scope: RequestScope) => R;
}

interface DocRow {
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

function toRecord<R>(spec: DocCollection<any, R>, row: DocRow, scope: RequestScope): R {
  const record = {
    id: row.id,
    object: spec.object,
    ...(JSON.parse(row.data) as object),
    ...(spec.mode === 'mode' ? { livemode: row.livemode === 1 } : {}),
    created_at: toInstant(row.created_at),
    updated_at: toInstant(row.updated_at),
  } as R;
  return spec.present ? spec.present(record, scope) : record;
}

function scoped(db: Queryable, spec: DocCollection<any, any>, scope: RequestScope) {
  let query = db
    .selectFrom(spec.table as 'venues')
    .select(['id', 'created_at', 'updated_at', 'data'])
    .where(`${spec.table}.workspace_id` as 'venues.workspace_id', '=', scope.workspaceId);
  if (spec.mode === 'mode') {
    query = query
      .select(sql<number>`livemode`.as('livemode'))
      .where(sql.ref(`${spec.table}.livemode`), '=', scope.livemode ? 1 : 0);
  }
  return query;
}

export async function listDocs<F extends Record<string, unknown>, R>(
  db: Queryable,
  spec: DocCollection<F, R>,
  scope: RequestScope,
  params: PageParams & F,
): Promise<Page<R>> {
  const { limit, starting_after, updated_since, ...rest } = params;
  const filters = rest as Record<string, unknown>;
  const plan = planPage(spec.object, { limit, starting_after, updated_since }, filters, scope.key.limits);
  if (spec.mode === 'live-only' && !scope.livemode) return emptyPage();
  let query = scoped(db, spec, scope);
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    const filter = spec.filters[name as keyof F];
    query = query.where((eb) => filter(eb, value));
  }
  const rows = (await pageQuery(query, spec.table, plan).execute()) as DocRow[];
  return finishPage(plan, rows, (row) => toRecord(spec, row, scope));
}

/** One record and its version for the ETag; any id this key cannot see is a 404. */
export async function getDoc<R>(
  db: Queryable,
  spec: DocCollection<any, R>,
  scope: RequestScope,
  id: string,
): Promise<{ record: R; version: string }> {
  const missing = () => notFound(`No ${spec.object.replace('_', ' ')} ${id.slice(0, 64)}.`);
  if (!isIdOf(spec.idKind, id)) throw missing();
  if (spec.mode === 'live-only' && !scope.livemode) throw missing();
  const row = (await scoped(db, spec, scope)
    .where(`${spec.table}.id` as 'venues.id', '=', id)
    .executeTakeFirst()) as DocRow | undefined;
  if (!row) throw missing();
  return { record: toRecord(spec, row, scope), version: row.updated_at.toString(36) };
}
