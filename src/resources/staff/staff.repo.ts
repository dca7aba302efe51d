import type { Queryable, StaffTable, Tx } from '../../db/schema.ts';

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
