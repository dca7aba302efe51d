import { randomBytes, scryptSync } from 'node:crypto';
import type { Writer } from '../../src/db/write.ts';
import type { Clock } from '../../src/lib/time.ts';
import { setPasswordHash } from '../../src/resources/staff/staff.repo.ts';
import { addStaff, type StaffMember } from '../../src/resources/workspaces/workspace.service.ts';

/**
 * A password hash in today's format at a cost far below production's, for tests that make
 * many staff or fail many sign-ins: a real hash at N=2^17 takes most of a second here. The
 * first successful sign-in re-hashes it at the full cost, as it would an older hash.
 */
export function cheapPasswordHash(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 });
  return `scrypt$1024$8$1$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** A hash in the format before the cost was stored (`scrypt$<salt>$<hash>`), at Node's default cost. */
export function legacyPasswordHash(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64url')}$${scryptSync(password, salt, 32).toString('base64url')}`;
}

/** addStaff, with `hash` stored as the password's hash instead of one made at the full cost. */
export async function addStaffWithHash(
  store: Writer,
  clock: Clock,
  input: { workspaceId: string; email: string; name: string; role: string; hash: string },
): Promise<StaffMember> {
  const { hash, ...member } = input;
  const staff = await addStaff(store, clock, member);
  await store.write((tx) => setPasswordHash(tx, staff.id, hash, clock()));
  return staff;
}

/**
 * The owner most console tests sign in as: one email and password here rather than in each
 * file. Tests about who signs in (other roles, a lock-out, a hash to upgrade) make their own.
 */
export const OWNER_EMAIL = 'owner@example.com';
export const OWNER_PASSWORD = 'right password';

/** Adds that owner to the workspace, with a cheap hash of OWNER_PASSWORD (see cheapPasswordHash). */
export function addOwner(store: Writer, clock: Clock, workspaceId: string): Promise<StaffMember> {
  return addStaffWithHash(store, clock, {
    workspaceId,
    email: OWNER_EMAIL,
    name: 'Olive Owner',
    role: 'owner',
    hash: cheapPasswordHash(OWNER_PASSWORD),
  });
}
