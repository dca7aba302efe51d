import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { CursorPosition } from '../lib/cursor.ts';
import type { PagePlan } from './paging.model.ts';

/** `(created_at, id) < (t, id)`: the keyset step, a range on the page index. */
function beforeCursor(table: string, after: CursorPosition): Expression<SqlBool> {
  return sql<SqlBool>`(${sql.ref(`${table}.created_at`)}, ${sql.ref(`${table}.id`)}) < (${after.createdAt}, ${after.id})`;
}

/**
 * The keyset steps every list shares: rows changed since `updated_since`, after the cursor,
 * newest first by (created_at, id) (DECISIONS "Lists and ids"), one row past the page so
 * finishPage can tell whether there is more. `table` qualifies the columns, so the query
 * may join other tables.
 */
export function pageQuery<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: string,
  plan: PagePlan,
): SelectQueryBuilder<DB, TB, O> {
  return pageSteps(query, table, plan.updatedSince, plan.after, plan.limit + 1);
}

/** pageQuery's steps from their values, which may be stand-ins of a prepared query (db/prepared.ts). */
export function pageSteps<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: string,
  updatedSince: number | null,
  after: CursorPosition | null,
  take: number,
): SelectQueryBuilder<DB, TB, O> {
  let paged = query;
  if (updatedSince !== null) {
    paged = paged.where(sql<SqlBool>`${sql.ref(`${table}.updated_at`)} >= ${updatedSince}`);
  }
  if (after) paged = paged.where(beforeCursor(table, after));
  return paged
    .orderBy(sql.ref(`${table}.created_at`), 'desc')
    .orderBy(sql.ref(`${table}.id`), 'desc')
    .limit(take);
}
