import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/schema.ts';
import { ApiError, invalid, notFound } from '../../errors.ts';
import { isIdOf, newId } from '../../lib/ids.ts';
import type { Clock } from '../../lib/time.ts';
import { DEFAULT_WORKSPACE_REQUESTS_PER_MINUTE } from '../keys/key.model.ts';

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
  if (!Number.isSafeInteger(value) || value < 1) throw invalid('requests_per_minute must be a whole number of 1 or more');
  return { requests_per_minute: value };
}

export async function createWorkspace(
  db: Db,
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
  await db
    .insertInto('workspaces')
    .values({ id, name, limits: JSON.stringify(limits), created_at: now, updated_at: now })
    .execute();
  return { id, name, limits, created_at: new Date(now).toISOString() };
}

/** Changing updated_at is what spreads the new limit to every process's key cache. */
export async function setWorkspaceLimit(db: Db, clock: Clock, workspaceId: string, name: string, value: number) {
  const limits = checkWorkspaceLimit(name, value);
  const ws = await getWorkspace(db, workspaceId);
  await db
    .updateTable('workspaces')
    .set({ limits: JSON.stringify(limits), updated_at: Math.max(clock(), Date.parse(ws.created_at) + 1) })
    .where('id', '=', workspaceId)
    .execute();
  return { ...ws, limits };
}

export async function getWorkspace(db: Db, workspaceId: string): Promise<Workspace> {
  if (!isIdOf('workspace', workspaceId)) throw notFound(`no workspace ${workspaceId}`);
  const row = await db.selectFrom('workspaces').selectAll().where('id', '=', workspaceId).executeTakeFirst();
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

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export function verifyPassword(password: string, stored: string | null): boolean {
  if (!stored) return false;
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = scryptSync(password, Buffer.from(salt, 'base64url'), expected.length);
  return timingSafeEqual(expected, actual);
}

export interface StaffMember {
  id: string;
  workspace_id: string;
  email: string;
  name: string;
  role: StaffRole;
}

export async function addStaff(
  db: Db,
  clock: Clock,
  input: { workspaceId: string; email: string; name: string; role: string; password?: string },
): Promise<StaffMember> {
  await getWorkspace(db, input.workspaceId);
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw invalid(`"${input.email}" is not an email address`);
  if (!STAFF_ROLES.includes(input.role as StaffRole)) throw invalid(`role must be one of ${STAFF_ROLES.join(', ')}`);
  if (!input.name.trim()) throw invalid('a staff member needs a name');
  if (input.password !== undefined && input.password.length < 8) throw invalid('a password needs 8 characters or more');
  const taken = await db
    .selectFrom('staff')
    .select('id')
    .where('workspace_id', '=', input.workspaceId)
    .where('email', '=', email)
    .executeTakeFirst();
  if (taken) throw new ApiError('conflict', `${email} is already staff of this workspace`);
  const now = clock();
  const member: StaffMember = {
    id: newId('staff'),
    workspace_id: input.workspaceId,
    email,
    name: input.name.trim(),
    role: input.role as StaffRole,
  };
  await db
    .insertInto('staff')
    .values({
      ...member,
      password_hash: input.password === undefined ? null : hashPassword(input.password),
      created_at: now,
      updated_at: now,
    })
    .execute();
  return member;
}
