import type { Writer } from '../../db/write.ts';
import { invalid, notFound } from '../../errors.ts';
import { hashPassword, verifyPassword } from '../../lib/password.ts';
import type { Clock } from '../../lib/time.ts';
import type { AuditActor } from '../audit/audit.model.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { getWorkspace, type StaffRole } from '../workspaces/workspace.service.ts';
import { deleteSessionsOf } from './session.repo.ts';
import { normaliseEmail } from './sign-in.service.ts';
import { findStaffInWorkspace, setPasswordHash } from './staff.repo.ts';

/** Owners and key managers manage keys; `staff` can sign in and see no key page (DECISIONS "Staff roles"). */
export function canManageKeys(role: StaffRole): boolean {
  return role === 'owner' || role === 'key_manager';
}

const MIN_PASSWORD_LENGTH = 8;
/** scrypt takes any length; a bound keeps a pasted novel from costing the server. */
const MAX_PASSWORD_LENGTH = 200;

export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw invalid(`a password needs ${MIN_PASSWORD_LENGTH} characters or more`);
  if (password.length > MAX_PASSWORD_LENGTH) throw invalid(`a password has at most ${MAX_PASSWORD_LENGTH} characters`);
}

/**
 * Sets a staff member's password and ends every session they have, on every process: a
 * changed password is how a person throws out whoever else may be signed in as them.
 */
export async function setStaffPassword(
  store: Writer,
  clock: Clock,
  input: { workspaceId: string; email: string; password: string; by?: AuditActor },
): Promise<{ id: string; email: string; sessions_ended: number }> {
  await getWorkspace(store.db, input.workspaceId);
  const email = normaliseEmail(input.email);
  const staff = await findStaffInWorkspace(store.db, input.workspaceId, email);
  if (!staff) throw notFound(`${email} is not staff of ${input.workspaceId}`);
  checkNewPassword(input.password);
  // Hashed before the transaction: scrypt's time is not spent holding the write lock.
  const hash = await hashPassword(input.password);
  const ended = await store.write(async (tx) => {
    const now = clock();
    await setPasswordHash(tx, staff.id, hash, now);
    const sessionsEnded = await deleteSessionsOf(tx, staff.id);
    if (input.by)
      await recordAudit(tx, {
        workspaceId: input.workspaceId,
        at: now,
        by: input.by,
        action: 'staff.password_set',
        target: staff.id,
        detail: { email: staff.email, sessions_ended: sessionsEnded },
      });
    return sessionsEnded;
  });
  return { id: staff.id, email: staff.email, sessions_ended: ended };
}

/** A signed-in person changing their own password: the current one first (console). */
export async function changeOwnPassword(
  store: Writer,
  clock: Clock,
  input: { workspaceId: string; email: string; current: string; next: string; by?: AuditActor },
): Promise<void> {
  const staff = await findStaffInWorkspace(store.db, input.workspaceId, normaliseEmail(input.email));
  if (!staff || !(await verifyPassword(input.current, staff.password_hash))) {
    throw invalid('the current password is not right', [{ field: 'current_password', message: 'is not right' }]);
  }
  await setStaffPassword(store, clock, {
    workspaceId: input.workspaceId,
    email: staff.email,
    password: input.next,
    ...(input.by ? { by: input.by } : {}),
  });
}
