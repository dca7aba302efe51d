import type { Insertable } from 'kysely';
import type { Engine } from '../db/dialects/types.ts';
import { toDocRow, type DocRecord, type DocTable } from '../db/doc-rows.ts';
import type { Database, Queryable } from '../db/schema.ts';

/**
 * Multi-row INSERTs as large as the engine allows (Engine.maxInsertRows: bound-parameter
 * limits differ between SQLite and PostgreSQL): the difference between hours and
 * minutes for a million customers.
 */
export async function insertMany<T extends keyof Database>(
  db: Queryable,
  engine: Engine,
  table: T,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  if (rows.length === 0) return;
  const perInsert = engine.maxInsertRows(Object.keys(rows[0]!).length);
  for (let i = 0; i < rows.length; i += perInsert) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + perInsert) as never)
      .execute();
  }
}

export async function insertDocs(db: Queryable, engine: Engine, table: DocTable, workspaceId: string, records: DocRecord[]): Promise<void> {
  await insertMany(db, engine, table, records.map((r) => toDocRow(table, workspaceId, r)) as never);
}
