import type { Insertable } from 'kysely';
import type { Engine } from './dialects/types.ts';
import type { Database, Tx } from './schema.ts';

/**
 * Multi-row INSERTs as large as the engine allows (Engine.maxInsertRows: bound-parameter
 * limits differ between SQLite and PostgreSQL): the difference between hours and
 * minutes for a million customers. `doNothingOnConflict` skips rows whose key is taken
 * (as preparedInsert's option does).
 */
export async function insertMany<T extends keyof Database>(
  tx: Tx,
  engine: Pick<Engine, 'maxInsertRows'>,
  table: T,
  rows: Insertable<Database[T]>[],
  options: { doNothingOnConflict?: boolean } = {},
): Promise<void> {
  if (rows.length === 0) return;
  const perInsert = engine.maxInsertRows(Object.keys(rows[0]!).length);
  for (let i = 0; i < rows.length; i += perInsert) {
    const insert = tx.insertInto(table).values(rows.slice(i, i + perInsert) as never);
    await (options.doNothingOnConflict ? insert.onConflict((oc) => oc.doNothing()) : insert).execute();
  }
}
