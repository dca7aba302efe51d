import type { Queryable, Tx } from '../../db/schema.ts';
import type { ConsoleSessionTable } from '../../db/tables/console.ts';
import type { StaffTable } from '../../db/tables/workspace.ts';

/** Console sessions (005-console), found by the SHA-256 of the cookie's token. */
export interface SessionRow extends ConsoleSessionTable {
  workspace_id: string;
  email: string;
  name: string;
  role: StaffTable['role'];
  workspace_name: string;
}

export async function insertSession(tx: Tx, row: ConsoleSessionTable): Promise<void> {
  await tx.insertInto('console_sessions').values(row).execute();
}

export async function findSession(db: Queryable, tokenHash: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('console_sessions')
    .innerJoin('staff', 'staff.id', 'console_sessions.staff_id')
    .innerJoin('workspaces', 'workspaces.id', 'staff.workspace_id')
    .select([
      'console_sessions.token_hash',
      'console_sessions.staff_id',
      'console_sessions.created_at',
      'console_sessions.last_seen_at',
      'console_sessions.expires_at',
      'staff.workspace_id',
      'staff.email',
      'staff.name',
      'staff.role',
      'workspaces.name as workspace_name',
    ])
    .where('console_sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchSession(tx: Tx, tokenHash: string, at: number): Promise<void> {
  await tx.updateTable('console_sessions').set({ last_seen_at: at }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(tx: Tx, tokenHash: string): Promise<void> {
  await tx.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteSessionsOf(tx: Tx, staffId: string): Promise<number> {
  const result = await tx.deleteFrom('console_sessions').where('staff_id', '=', staffId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteExpiredSessions(tx: Tx, now: number): Promise<void> {
  await tx.deleteFrom('console_sessions').where('expires_at', '<=', now).execute();
}
