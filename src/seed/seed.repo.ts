import type { Engine } from '../db/dialects/types.ts';
import { toDocRow, type DocRecord, type DocTable } from '../db/doc-rows.ts';
import { insertMany } from '../db/insert-many.ts';
import type { Queryable, Tx } from '../db/schema.ts';

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
