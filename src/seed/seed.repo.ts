import type { Insertable } from 'kysely';
import type { Engine } from '../db/dialects/types.ts';
import { toDocRow, type DocRecord, type DocTable } from '../db/doc-rows.ts';
import type { Database, Queryable, Tx } from '../db/schema.ts';

/**
 * Multi-row INSERTs as large as the engine allows (Engine.maxInsertRows: bound-parameter
 * limits differ between SQLite and PostgreSQL): the difference between hours and
 * minutes for a million customers.
 */
export async function insertMany<T extends keyof Database>(
  tx: Tx,
  engine: Engine,
  table: T,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  if (rows.length === 0) return;
  const perInsert = engine.maxInsertRows(Object.keys(rows[0]!).length);
  for (let i = 0; i < rows.length; i += perInsert) {
    await tx
      .insertInto(table)
      .values(rows.slice(i, i + perInsert) as never)
      .execute();
  }
}

export async function insertDocs(
  tx: Tx,
  engine: Engine,
  table: DocTable,
  workspaceId: string,
  records: DocRecord[],
): Promise<void> {
  await insertMany(tx, engine, table, records.map((r) => toDocRow(table, workspaceId, r)) as never);
}

/** What a workspace already has that a seed builds on: catalogue slugs, tags, lists and sales counts. */
export async function readCatalogue(db: Queryable, workspaceId: string) {
  const docs = async (table: 'venues' | 'activities' | 'packages' | 'events') =>
    (
      await db
        .selectFrom(table)
        .select(['data', 'created_at'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('created_at')
        .execute()
    ).map((r) => JSON.parse(r.data) as { slug?: string });
  const count = async (table: 'bookings' | 'orders') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('workspace_id', '=', workspaceId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const [venues, activities, packages, events] = await Promise.all([
    docs('venues'),
    docs('activities'),
    docs('packages'),
    docs('events'),
  ]);
  return {
    docs: { venues, activities, packages, events },
    tags: await db.selectFrom('tags').select(['id', 'name']).where('workspace_id', '=', workspaceId).execute(),
    lists: await db
      .selectFrom('lists')
      .select(['id', 'name', 'slug'])
      .where('workspace_id', '=', workspaceId)
      .execute(),
    bookings: await count('bookings'),
    orders: await count('orders'),
  };
}
