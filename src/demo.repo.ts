import type { Database, Db, Tx } from './db/schema.ts';

/** What the first-start demo (demo.ts) reads and writes: its record in `meta`, and its workspace's rows. */
export async function readMeta(db: Db, name: string): Promise<string | null> {
  const row = await db.selectFrom('meta').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value ?? null;
}

export async function insertMeta(tx: Tx, name: string, value: string): Promise<void> {
  await tx.insertInto('meta').values({ name, value }).execute();
}

export async function updateMeta(tx: Tx, name: string, value: string): Promise<void> {
  await tx.updateTable('meta').set({ value }).where('name', '=', name).execute();
}

export async function anyWorkspace(db: Db): Promise<boolean> {
  return (await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Every row of one workspace in the tables named, children first. */
export async function deleteWorkspaceRows(
  tx: Tx,
  tables: readonly (keyof Database & string)[],
  workspaceId: string,
): Promise<void> {
  for (const table of tables)
    await tx
      .deleteFrom(table as 'customers')
      .where('workspace_id', '=', workspaceId)
      .execute();
}
