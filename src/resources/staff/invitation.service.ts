import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/schema.ts';
import type { Writer } from '../../db/write.ts';
import { ApiError, notFound } from '../../errors.ts';
import { type MailSettings, sendOrKeep } from '../../jobs/mailer.ts';
import { newId } from '../../lib/ids.ts';
import { hashPassword } from '../../lib/password.ts';
import type { Clock } from '../../lib/time.ts';
import type { AuditActor } from '../audit/audit.model.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { staffEmailTaken, insertStaff } from '../workspaces/workspace.repo.ts';
import { getWorkspace, staffEmail, type StaffRole } from '../workspaces/workspace.service.ts';
import {
  acceptInvitationRow,
  deleteInvitationsBefore,
  findInvitation,
  insertInvitation,
  withdrawOpenInvitations,
} from './invitation.repo.ts';
import { parseRole } from './staff-admin.service.ts';
import { checkNewPassword } from './staff.service.ts';

/**
 * Owners invite people by email (docs/console.md "Staff"): a one-time link valid 72 hours,
 * emailed (or kept in the outbox, for owners only) and shown once to the owner who sent it.
 * Only the SHA-256 of the link's token is stored, as for sessions.
 */
export const INVITATION_TTL_MS = 72 * 3_600_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

const invitationPath = (token: string) => `/console/invitations/${token}`;

export interface SentInvitation {
  email: string;
  role: StaffRole;
  link: string;
  expiresAt: number;
  delivery: 'sent' | 'kept';
}

export async function inviteStaff(
  store: Writer,
  clock: Clock,
  mail: MailSettings & { baseUrl: string },
  input: { workspaceId: string; email: string; role: string; by: AuditActor & { kind: 'staff' } },
): Promise<SentInvitation> {
  const email = staffEmail(input.email);
  const role = parseRole(input.role);
  const workspace = await getWorkspace(store.db, input.workspaceId);
  const token = randomBytes(32).toString('base64url');
  const now = clock();
  const expiresAt = now + INVITATION_TTL_MS;
  await store.write(async (tx) => {
    if (await staffEmailTaken(tx, input.workspaceId, email))
      throw new ApiError('conflict', `${email} is already staff of this workspace`, {
        errors: [{ field: 'email', message: 'is already staff of this workspace' }],
      });
    await deleteInvitationsBefore(tx, now);
    await withdrawOpenInvitations(tx, input.workspaceId, email);
    await insertInvitation(tx, {
      token_hash: hashToken(token),
      workspace_id: input.workspaceId,
      email,
      role,
      invited_by: input.by.email,
      created_at: now,
      expires_at: expiresAt,
      accepted_at: null,
    });
    await recordAudit(tx, {
      workspaceId: input.workspaceId,
      at: now,
      by: input.by,
      action: 'staff.invited',
      target: email,
      detail: { role, expires_at: new Date(expiresAt).toISOString() },
    });
  });
  const link = `${mail.baseUrl}${invitationPath(token)}`;
  const { sent } = await sendOrKeep(
    store,
    clock,
    mail,
    input.workspaceId,
    [
      {
        to: email,
        subject: `You are invited to ${workspace.name}'s developer settings`,
        text: [
          `${input.by.email} invited you to the developer settings of ${workspace.name} as ${role.replace('_', ' ')}.`,
          '',
          `Accept by ${new Date(expiresAt).toISOString()} (the link works once):`,
          link,
        ].join('\n'),
      },
    ],
    { ownersOnly: true },
  );
  return { email, role, link, expiresAt, delivery: sent > 0 ? 'sent' : 'kept' };
}

export interface InvitationView {
  email: string;
  role: StaffRole;
  workspaceName: string;
  invitedBy: string;
}

/** What an invitation link offers, or a 404 whose detail says why it no longer works. */
export async function openInvitation(db: Db, clock: Clock, token: string): Promise<InvitationView> {
  const row = token.length <= 100 ? await findInvitation(db, hashToken(token)) : undefined;
  if (!row) throw notFound('This invitation link is not valid. Ask an owner of the workspace for a new one.');
  if (row.accepted_at !== null)
    throw notFound('This invitation was already used. Sign in, or ask an owner of the workspace for a new one.');
  if (Number(row.expires_at) <= clock())
    throw notFound('This invitation has expired (they last 72 hours). Ask an owner of the workspace for a new one.');
  const workspace = await getWorkspace(db, row.workspace_id);
  return { email: row.email, role: row.role, workspaceName: workspace.name, invitedBy: row.invited_by };
}

/**
 * Accepts an invitation: the person chooses their name and password and becomes staff with
 * the role they were invited as; the link works no more. Answers the new staff id, for the
 * caller to start their session.
 */
export async function acceptInvitation(
  store: Writer,
  clock: Clock,
  input: { token: string; name: string; password: string; address: string },
): Promise<{ staffId: string; workspaceId: string }> {
  const invitation = await openInvitation(store.db, clock, input.token);
  const name = input.name.trim();
  if (!name || name.length > 200)
    throw new ApiError('invalid_request', 'a name needs 1 to 200 characters', {
      errors: [{ field: 'name', message: 'needs 1 to 200 characters' }],
    });
  checkNewPassword(input.password);
  // Hashed before the transaction: scrypt's time is not spent holding the write lock.
  const hash = await hashPassword(input.password);
  const tokenHash = hashToken(input.token);
  return store.write(async (tx) => {
    const row = await findInvitation(tx, tokenHash);
    const now = clock();
    if (!row || Number(row.expires_at) <= now || !(await acceptInvitationRow(tx, tokenHash, now)))
      throw notFound('This invitation was already used or has expired. Ask an owner of the workspace for a new one.');
    if (await staffEmailTaken(tx, row.workspace_id, invitation.email))
      throw new ApiError('conflict', `${invitation.email} is already staff of this workspace; sign in instead.`);
    const staffId = newId('staff');
    await insertStaff(tx, {
      id: staffId,
      workspace_id: row.workspace_id,
      email: row.email,
      name,
      role: row.role,
      password_hash: hash,
      created_at: now,
      updated_at: now,
    });
    await recordAudit(tx, {
      workspaceId: row.workspace_id,
      at: now,
      by: { kind: 'staff', staffId, email: row.email, address: input.address },
      action: 'staff.joined',
      target: staffId,
      detail: { role: row.role, invited_by: row.invited_by },
    });
    return { staffId, workspaceId: row.workspace_id };
  });
}
