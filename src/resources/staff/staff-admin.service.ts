import type { Db } from '../../db/schema.ts';
import type { Writer } from '../../db/write.ts';
import { ApiError, invalid, notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import type { Clock } from '../../lib/time.ts';
import type { AuditActor } from '../audit/audit.model.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { STAFF_ROLES, type StaffRole } from '../workspaces/workspace.service.ts';
import { openInvitations } from './invitation.repo.ts';
import { deleteSessionsOf } from './session.repo.ts';
import {
  countOwners,
  deleteStaffRow,
  findStaffById,
  listStaffRows,
  lockWorkspaceStaff,
  setStaffRole,
  type StaffListRow,
  type StaffRow,
} from './staff.repo.ts';

/**
 * Owners manage the workspace's staff (DECISIONS "Staff roles", docs/console.md "Staff"):
 * change a role, remove someone. A workspace always keeps at least one owner.
 */
export function canManageStaff(role: StaffRole): boolean {
  return role === 'owner';
}

export interface OpenInvitation {
  email: string;
  role: StaffRole;
  invitedBy: string;
  expiresAt: number;
}

export async function listWorkspaceStaff(
  db: Db,
  workspaceId: string,
  now: number,
): Promise<{ staff: StaffListRow[]; invitations: OpenInvitation[] }> {
  const [staff, invitations] = await Promise.all([
    listStaffRows(db, workspaceId),
    openInvitations(db, workspaceId, now),
  ]);
  return {
    staff,
    invitations: invitations.map((i) => ({
      email: i.email,
      role: i.role,
      invitedBy: i.invited_by,
      expiresAt: Number(i.expires_at),
    })),
  };
}

export async function getStaffMember(db: Db, workspaceId: string, staffId: string): Promise<StaffRow> {
  const row = isIdOf('staff', staffId) ? await findStaffById(db, workspaceId, staffId) : undefined;
  if (!row) throw notFound(`no staff member ${staffId.slice(0, 64)} in this workspace`);
  return row;
}

const lastOwner = (who: StaffRow, doing: string) =>
  new ApiError(
    'conflict',
    `${who.name} is the last owner of this workspace, so they cannot be ${doing}. Make someone else an owner first.`,
  );

export function parseRole(raw: string): StaffRole {
  if (!STAFF_ROLES.includes(raw as StaffRole))
    throw invalid(`role must be one of ${STAFF_ROLES.join(', ')}`, [{ field: 'role', message: 'is not a role' }]);
  return raw as StaffRole;
}

export async function changeStaffRole(
  store: Writer,
  clock: Clock,
  input: { workspaceId: string; staffId: string; role: string; by: AuditActor },
): Promise<StaffRow> {
  const role = parseRole(input.role);
  await getStaffMember(store.db, input.workspaceId, input.staffId);
  return store.write(async (tx) => {
    await lockWorkspaceStaff(tx, input.workspaceId);
    const member = await findStaffById(tx, input.workspaceId, input.staffId);
    if (!member) throw notFound(`no staff member ${input.staffId} in this workspace`);
    if (member.role === role) return member;
    if (member.role === 'owner' && (await countOwners(tx, input.workspaceId)) <= 1) throw lastOwner(member, 'demoted');
    const now = clock();
    await setStaffRole(tx, member.id, role, now);
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      at: now,
      by: input.by,
      action: 'staff.role_changed',
      target: member.id,
      detail: { email: member.email, from: member.role, to: role },
    });
    return { ...member, role };
  });
}

/**
 * Removes someone from the workspace and ends every session they have in the same
 * transaction: their next request, on any process, finds no session and is signed out.
 */
export async function removeStaff(
  store: Writer,
  clock: Clock,
  input: { workspaceId: string; staffId: string; by: AuditActor },
): Promise<{ member: StaffRow; sessionsEnded: number }> {
  await getStaffMember(store.db, input.workspaceId, input.staffId);
  return store.write(async (tx) => {
    await lockWorkspaceStaff(tx, input.workspaceId);
    const member = await findStaffById(tx, input.workspaceId, input.staffId);
    if (!member) throw notFound(`no staff member ${input.staffId} in this workspace`);
    if (member.role === 'owner' && (await countOwners(tx, input.workspaceId)) <= 1) throw lastOwner(member, 'removed');
    const sessionsEnded = await deleteSessionsOf(tx, member.id);
    await deleteStaffRow(tx, member.id);
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      at: clock(),
      by: input.by,
      action: 'staff.removed',
      target: member.id,
      detail: { email: member.email, role: member.role, sessions_ended: sessionsEnded },
    });
    return { member, sessionsEnded };
  });
}
