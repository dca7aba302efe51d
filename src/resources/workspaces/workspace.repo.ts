import type { Insertable } from 'kysely';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { StaffTable, WorkspaceTable } from '../../db/tables/workspace.ts';

/** Workspaces and their staff (the people who sign in to the developer settings). */
export async function workspaceExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.selectFrom('workspaces').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** Every workspace's id, for the jobs that go through them one at a time. */
export async function workspaceIds(db: Queryable): Promise<string[]> {
  return (await db.selectFrom('workspaces').select('id').orderBy('id').execute()).map((row) => row.id);
}

export async function findWorkspace(db: Queryable, id: string): Promise<WorkspaceTable | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertWorkspace(tx: Tx, row: WorkspaceTable): Promise<void> {
  await tx.insertInto('workspaces').values(row).execute();
}

export async function setWorkspaceLimits(tx: Tx, id: string, limits: string, updatedAt: number): Promise<void> {
  await tx.updateTable('workspaces').set({ limits, updated_at: updatedAt }).where('id', '=', id).execute();
}

export async function staffEmailTaken(db: Queryable, workspaceId: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('staff')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('email', '=', email)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertStaff(tx: Tx, row: Insertable<StaffTable>): Promise<void> {
  await tx.insertInto('staff').values(row).execute();
}

/** The emails of the workspace's staff with these roles, in order. */
export async function staffEmailsWithRoles(
  db: Queryable,
  workspaceId: string,
  roles: readonly StaffTable['role'][],
): Promise<string[]> {
  const rows = await db
    .selectFrom('staff')
    .select('email')
    .where('workspace_id', '=', workspaceId)
    .where('role', 'in', [...roles])
    .orderBy('email')
    .execute();
  return rows.map((r) => r.email);
}
