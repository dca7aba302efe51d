import { sql } from 'kysely';
import { invalid } from '../errors.ts';
import { parseInstantWithOffset } from '../lib/time.ts';
import type { FilterFn } from './doc-collection.ts';

/**
 * Filter conditions beyond plain equality (`eq` in doc-collection.ts). The raw query
 * value stays the cursor's binding; only the condition reads it parsed.
 */

/** An instant parameter, ISO 8601 with an offset like `updated_since` (SPEC "Rules common" 2). */
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

/** Matches when any of the columns equals the value (a gift card's holder or buyer). */
export const anyEq =
  (...columns: string[]): FilterFn =>
  (eb, value) =>
    eb.or(columns.map((column) => eb(sql.ref(column), '=', value)));
