import type { Queryable, Tx } from '../../db/schema.ts';
import type { StaffTable } from '../../db/tables/workspace.ts';

/** Staff rows for signing in and setting passwords (the console and the CLI). */
export type StaffRow = Pick<StaffTable, 'id' | 'workspace_id' | 'email' | 'name' | 'role' | 'password_hash'>;

const STAFF_COLUMNS = ['id', 'workspace_id', 'email', 'name', 'role', 'password_hash'] as const;

/** Every staff row with this email, oldest first (an email may be staff of several workspaces). */
export async function staffWithEmail(db: Queryable, email: string): Promise<StaffRow[]> {
  return db
    .selectFrom('staff')
    .select([...STAFF_COLUMNS])
    .where('email', '=', email)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findStaffInWorkspace(
  db: Queryable,
  workspaceId: string,
  email: string,
): Promise<StaffRow | undefined> {
  return db
    .selectFrom('staff')
    .select([...STAFF_COLUMNS])
    .where('workspace_id', '=', workspaceId)
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function setPasswordHash(tx: Tx, staffId: string, hash: string, now: number): Promise<void> {
  await tx.updateTable('staff').set({ password_hash: hash, updated_at: now }).where('id', '=', staffId).execute();
}

/** The same password's hash made again at today's cost; nothing when the hash changed meanwhile. */
export async function replacePasswordHash(tx: Tx, staffId: string, previous: string, next: string): Promise<void> {
  await tx
    .updateTable('staff')
    .set({ password_hash: next })
    .where('id', '=', staffId)
    .where('password_hash', '=', previous)
    .execute();
}

/** A staff member as the staff page lists them. */
export interface StaffListRow {
  id: string;
  email: string;
  name: string;
  role: StaffTable['role'];
  has_password: boolean;
  created_at: number;
}

/** The workspace's staff, owners first, then by name. A workspace has tens of people, not thousands. */
export async function listStaffRows(db: Queryable, workspaceId: string): Promise<StaffListRow[]> {
  const rows = await db
    .selectFrom('staff')
    .select(['id', 'email', 'name', 'role', 'password_hash', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('name')
    .orderBy('email')
    .execute();
  const rank = { owner: 0, key_manager: 1, staff: 2 } as const;
  return rows
    .map((r) => ({
      id: r.id,
      email: r.email,
      name: r.name,
      role: r.role,
      has_password: r.password_hash !== null,
      created_at: Number(r.created_at),
    }))
    .sort((a, b) => rank[a.role] - rank[b.role]);
}

export async function findStaffById(db: Queryable, workspaceId: string, id: string): Promise<StaffRow | undefined> {
  return db
    .selectFrom('staff')
    .select([...STAFF_COLUMNS])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Holds the workspace's row for the rest of the transaction, so two owners changing staff at
 * once take turns and the last-owner rule counts owners nobody else is changing (PostgreSQL;
 * SQLite runs one write at a time anyway).
 */
export async function lockWorkspaceStaff(tx: Tx, workspaceId: string): Promise<void> {
  await tx
    .updateTable('workspaces')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('id', '=', workspaceId)
    .execute();
}

export async function countOwners(tx: Tx, workspaceId: string): Promise<number> {
  const row = await tx
    .selectFrom('staff')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setStaffRole(tx: Tx, id: string, role: StaffTable['role'], now: number): Promise<void> {
  await tx.updateTable('staff').set({ role, updated_at: now }).where('id', '=', id).execute();
}

export async function deleteStaffRow(tx: Tx, id: string): Promise<void> {
  await tx.deleteFrom('staff').where('id', '=', id).execute();
}
