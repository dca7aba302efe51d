import { jsonDialectOf } from './json-record.ts';
import type { Queryable } from './schema.ts';

/**
 * Whether a write should take back what it needs with RETURNING rather than read it with a
 * statement of its own. PostgreSQL: yes, each statement is a round trip. SQLite: no; its
 * statements are calls inside the process, and it runs RETURNING through a temporary table
 * that costs three or four times the INSERT itself (bench/README.md).
 */
export function returningPays(db: Queryable): boolean {
  return jsonDialectOf(db) === 'postgres';
}
