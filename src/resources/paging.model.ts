import { invalid } from '../errors.ts';
import { decodeCursor, encodeCursor, type CursorPosition } from '../lib/cursor.ts';
import { parseInstantWithOffset } from '../lib/time.ts';

/** The three parameters every list takes (SPEC "Rules common to all endpoints" 2). */
export interface PageParams {
  limit?: number;
  starting_after?: string;
  updated_since?: string;
}

export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor?: string;
}

export interface PagePlan {
  collection: string;
  /** The filters the cursor is bound to (updated_since included). */
  filters: Record<string, unknown>;
  limit: number;
  after: CursorPosition | null;
  updatedSince: number | null;
}

export function planPage(
  collection: string,
  params: PageParams,
  filters: Record<string, unknown>,
  pageSize: { default: number; max: number },
): PagePlan {
  const limit = params.limit ?? pageSize.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > pageSize.max) {
    throw invalid(`limit must be a whole number from 1 to ${pageSize.max}.`, [
      { field: 'limit', message: `must be from 1 to ${pageSize.max}` },
    ]);
  }
  let updatedSince: number | null = null;
  if (params.updated_since !== undefined) {
    updatedSince = parseInstantWithOffset(params.updated_since);
    if (updatedSince === null) {
      throw invalid('updated_since must be an ISO 8601 instant with an offset, e.g. 2026-10-08T00:00:00Z.', [
        { field: 'updated_since', message: 'must be ISO 8601 with an offset' },
      ]);
    }
  }
  const bound = { ...filters, updated_since: updatedSince };
  let after: CursorPosition | null = null;
  if (params.starting_after !== undefined) {
    after = decodeCursor(collection, bound, params.starting_after);
    if (!after) {
      throw invalid('starting_after is not a cursor from this list with these filters.', [
        { field: 'starting_after', message: 'is not a next_cursor of this list' },
      ]);
    }
  }
  return { collection, filters: bound, limit, after, updatedSince };
}

/** Rows were fetched with limit + 1: the extra one only says there is more. */
export function finishPage<R extends { created_at: number; id: string }, T>(
  plan: PagePlan,
  rows: R[],
  toRecord: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > plan.limit;
  const shown = hasMore ? rows.slice(0, plan.limit) : rows;
  const page: Page<T> = { object: 'list', data: shown.map(toRecord), has_more: hasMore };
  const last = shown[shown.length - 1];
  if (hasMore && last) {
    page.next_cursor = encodeCursor(plan.collection, plan.filters, { createdAt: last.created_at, id: last.id });
  }
  return page;
}

export const emptyPage = <T>(): Page<T> => ({ object: 'list', data: [], has_more: false });

/** A page whose records are JSON text already, as the same envelope the list schema sends. */
export function pageText(page: Page<string>): string {
  const cursor = page.next_cursor === undefined ? '' : `,"next_cursor":${JSON.stringify(page.next_cursor)}`;
  return `{"object":"list","data":[${page.data.join(',')}],"has_more":${page.has_more}${cursor}}`;
}
