import type { Db, Tx } from '../../db/schema.ts';
import type { Writer } from '../../db/write.ts';
import { ApiError, invalid, notFound } from '../../errors.ts';
import { isIdOf, newId } from '../../lib/ids.ts';
import { hashPassword } from '../../lib/password.ts';
import type { Clock } from '../../lib/time.ts';
import type { AuditActor } from '../audit/audit.model.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { DEFAULT_WORKSPACE_REQUESTS_PER_MINUTE } from '../keys/key.model.ts';
import { findWorkspace, insertStaff, insertWorkspace, setWorkspaceLimits, staffEmailTaken } from './workspace.repo.ts';

export interface Workspace {
  id: string;
  name: string;
  limits: { requests_per_minute: number };
  created_at: string;
}

export type StaffRole = 'owner' | 'key_manager' | 'staff';
export const STAFF_ROLES: readonly StaffRole[] = ['owner', 'key_manager', 'staff'];

function checkWorkspaceLimit(name: string, value: number): { requests_per_minute: number } {
  if (name !== 'requests_per_minute') throw invalid(`a workspace has one limit, requests_per_minute (got "${name}")`);
  if (!Number.isSafeInteger(value) || value < 1)
    throw invalid('requests_per_minute must be a whole number of 1 or more');
  return { requests_per_minute: value };
}

export async function createWorkspace(
  store: Writer,
  clock: Clock,
  input: { name: string; requestsPerMinute?: number },
): Promise<Workspace> {
  return store.write((tx) => insertNewWorkspace(tx, clock, input));
}

/** The same, inside a transaction that writes more (the first start's demo record). */
export async function insertNewWorkspace(
  tx: Tx,
  clock: Clock,
  input: { name: string; requestsPerMinute?: number },
): Promise<Workspace> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw invalid('a workspace needs a name of 1 to 200 characters');
  const limits =
    input.requestsPerMinute === undefined
      ? { requests_per_minute: DEFAULT_WORKSPACE_REQUESTS_PER_MINUTE }
      : checkWorkspaceLimit('requests_per_minute', input.requestsPerMinute);
  const now = clock();
  const id = newId('workspace');
  await insertWorkspace(tx, { id, name, limits: JSON.stringify(limits), created_at: now, updated_at: now });
  return { id, name, limits, created_at: new Date(now).toISOString() };
}

/** Changing updated_at is what spreads the new limit to every process's key cache. */
export async function setWorkspaceLimit(store: Writer, clock: Clock, workspaceId: string, name: string, value: number) {
  const limits = checkWorkspaceLimit(name, value);
  return store.write(async (tx) => {
    const ws = await getWorkspace(tx, workspaceId);
    await setWorkspaceLimits(tx, workspaceId, JSON.stringify(limits), Math.max(clock(), Date.parse(ws.created_at) + 1));
    return { ...ws, limits };
  });
}

export async function getWorkspace(db: Db, workspaceId: string): Promise<Workspace> {
  if (!isIdOf('workspace', workspaceId)) throw notFound(`no workspace ${workspaceId}`);
  const row = await findWorkspace(db, workspaceId);
  if (!row) throw notFound(`no workspace ${workspaceId}`);
  return {
    id: row.id,
    name: row.name,
    limits: {
      requests_per_minute: DEFAULT_WORKSPACE_REQUESTS_PER_MINUTE,
      ...(JSON.parse(row.limits) as object),
    },
    created_at: new Date(row.created_at).toISOString(),
  };
}

export interface StaffMember {
  id: string;
  workspace_id: string;
  email: string;
  name: string;
  role: StaffRole;
}

/** A staff email as it is stored: trimmed, lower case, and shaped like an address. */
export function staffEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) || email.length > 320)
    throw invalid(`"${raw.slice(0, 320)}" is not an email address`, [
      { field: 'email', message: 'is not an email address' },
    ]);
  return email;
}

export async function addStaff(
  store: Writer,
  clock: Clock,
  input: { workspaceId: string; email: string; name: string; role: string; password?: string; by?: AuditActor },
): Promise<StaffMember> {
  const email = staffEmail(input.email);
  if (!STAFF_ROLES.includes(input.role as StaffRole)) throw invalid(`role must be one of ${STAFF_ROLES.join(', ')}`);
  if (!input.name.trim()) throw invalid('a staff member needs a name');
  if (input.password !== undefined && input.password.length < 8) throw invalid('a password needs 8 characters or more');
  // Hashed before the transaction: scrypt's time is not spent holding the write lock.
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  return store.write(async (tx) => {
    await getWorkspace(tx, input.workspaceId);
    if (await staffEmailTaken(tx, input.workspaceId, email))
      throw new ApiError('conflict', `${email} is already staff of this workspace`);
    const now = clock();
    const member: StaffMember = {
      id: newId('staff'),
      workspace_id: input.workspaceId,
      email,
      name: input.name.trim(),
      role: input.role as StaffRole,
    };
    await insertStaff(tx, { ...member, password_hash: passwordHash, created_at: now, updated_at: now });
    if (input.by)
      await recordAudit(tx, {
        workspaceId: input.workspaceId,
        at: now,
        by: input.by,
        action: 'staff.added',
        target: member.id,
        detail: { email, role: member.role },
      });
    return member;
  });
}
