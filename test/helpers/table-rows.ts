import { sql } from 'kysely';
import { describeTables, NOT_COPIED } from '../../src/db/copy.ts';
import type { Storage } from '../../src/db/index.ts';

export type Row = Record<string, unknown>;

/**
 * Every row of every table but those the copy leaves out, each table's rows in the order of
 * their primary key compared as JSON (the engines' collations order text differently), so
 * two databases can be compared value for value.
 */
export async function tableContents(storage: Storage): Promise<Record<string, Row[]>> {
  const out: Record<string, Row[]> = {};
  for (const t of await describeTables(storage)) {
    if (t.name in NOT_COPIED) continue;
    const { rows } = await sql<Row>`select * from ${sql.table(t.name)}`.execute(storage.db);
    const keyOf = (r: Row) => JSON.stringify(t.key.map((c) => r[c]));
    out[t.name] = rows
      .map((r) =>
        Object.fromEntries(
          Object.keys(r)
            .sort()
            .map((c) => [c, r[c]]),
        ),
      )
      .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  }
  return out;
}

/** Rows per table, from tableContents. */
export const rowCounts = (contents: Record<string, Row[]>) =>
  Object.fromEntries(Object.entries(contents).map(([name, rows]) => [name, rows.length]));
