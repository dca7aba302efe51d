import type { Queryable, Tx } from '../../db/schema.ts';
import type { StaffInvitationTable } from '../../db/tables/console.ts';

/** Invitations to a workspace (012-audit), found by the SHA-256 of the link's token. */
export async function insertInvitation(tx: Tx, row: StaffInvitationTable): Promise<void> {
  await tx.insertInto('staff_invitations').values(row).execute();
}

export async function findInvitation(db: Queryable, tokenHash: string): Promise<StaffInvitationTable | undefined> {
  return db.selectFrom('staff_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Marks it used; answers false when another request used it first. */
export async function acceptInvitationRow(tx: Tx, tokenHash: string, at: number): Promise<boolean> {
  const result = await tx
    .updateTable('staff_invitations')
    .set({ accepted_at: at })
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A new invitation replaces any earlier one to the same email that is still open. */
export async function withdrawOpenInvitations(tx: Tx, workspaceId: string, email: string): Promise<void> {
  await tx
    .deleteFrom('staff_invitations')
    .where('workspace_id', '=', workspaceId)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .execute();
}

/** The workspace's invitations still open at `now`, newest first (the staff page). */
export async function openInvitations(
  db: Queryable,
  workspaceId: string,
  now: number,
): Promise<StaffInvitationTable[]> {
  return db
    .selectFrom('staff_invitations')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();
}

export async function deleteInvitationsBefore(tx: Tx, before: number): Promise<void> {
  await tx.deleteFrom('staff_invitations').where('expires_at', '<=', before).execute();
}
