import type { Tx } from '../../db/schema.ts';
import type { Writer } from '../../db/write.ts';
import { randomBase62 } from '../../lib/ids.ts';
import { decoyPasswordHash, hashPassword, needsRehash, verifyPassword } from '../../lib/password.ts';
import type { Clock } from '../../lib/time.ts';
import { addressBucket } from '../../limits/address.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { SignInGate } from './sign-in-gate.ts';
import { SIGN_IN_RULES } from './sign-in.model.ts';
import {
  clearEmailFailures,
  countFailures,
  deleteFailuresBefore,
  holdSubjects,
  lockedUntil,
  lockUntil,
  recordFailure,
  unlock,
} from './sign-in.repo.ts';
import { replacePasswordHash, staffWithEmail, type StaffRow } from './staff.repo.ts';

export type SignInResult =
  | { kind: 'signed_in'; staff: StaffRow }
  | { kind: 'refused' }
  | { kind: 'locked'; until: number };

export function normaliseEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

/** The lock-outs an attempt answers to: its email's and its address's. */
interface Subjects {
  email: string;
  address: string;
}

export async function signIn(
  store: Writer,
  clock: Clock,
  gate: SignInGate,
  input: { email: string; password: string; ip: string },
): Promise<SignInResult> {
  const email = normaliseEmail(input.email).slice(0, 320);
  const address = addressBucket(input.ip);
  const leave = gate.enter(email, address);
  if (!leave) return { kind: 'locked', until: clock() + SIGN_IN_RULES.busyRetryMs };
  try {
    return await attempt(store, clock(), { email, address, password: input.password, ip: input.ip });
  } finally {
    leave();
  }
}

async function attempt(
  store: Writer,
  now: number,
  input: { email: string; address: string; password: string; ip: string },
): Promise<SignInResult> {
  const { email, address } = input;
  const subjects: Subjects = { email: `email:${email}`, address: `address:${address}` };
  // Counted as a failure before the password is checked, so guesses sent at once, from any
  // number of processes, count exactly as guesses sent one after another.
  const reserved = await store.write((tx) => reserve(tx, subjects, { email, address }, now));
  if (reserved.kind === 'refused') return { kind: 'locked', until: reserved.until };

  // Every candidate is checked (the decoy when there is none), so an unknown email costs as long as a known one.
  const candidates = email ? await staffWithEmail(store.db, email) : [];
  let match: StaffRow | null = null;
  for (const staff of candidates.length > 0 ? candidates : [null]) {
    const ok = await verifyPassword(input.password, staff ? staff.password_hash : await decoyPasswordHash());
    if (ok && staff && !match) match = staff;
  }
  if (match) {
    const signedIn = match;
    // A hash made at a lower cost than today's is made again now, the one time the password is
    // at hand; hashed before the transaction, and stored only if nobody changed it meanwhile.
    const upgraded = needsRehash(signedIn.password_hash) ? await hashPassword(input.password) : null;
    await store.write(async (tx) => {
      await holdSubjects(tx, [subjects.email, subjects.address]);
      await clearEmailFailures(tx, email);
      // No lock was on when this attempt was counted: one on now was reached by attempts counted
      // since, which one after another would have come after this sign-in and its clearing.
      await unlock(tx, subjects.email);
      const since = now - SIGN_IN_RULES.windowMs;
      if ((await countFailures(tx, { column: 'address', value: address }, since)) < SIGN_IN_RULES.addressFailures)
        await unlock(tx, subjects.address);
      if (upgraded && signedIn.password_hash)
        await replacePasswordHash(tx, signedIn.id, signedIn.password_hash, upgraded);
      await auditSignIn(tx, signedIn, { at: now, ip: input.ip, action: 'sign_in.succeeded' });
    });
    return { kind: 'signed_in', staff: upgraded ? { ...signedIn, password_hash: upgraded } : signedIn };
  }

  // In the audit log of every workspace the email is staff of; an unknown email has none.
  // Attempts a running lock-out refuses are not written again (the lock's start is).
  if (candidates.length > 0)
    await store.write(async (tx) => {
      for (const staff of candidates)
        await auditSignIn(tx, staff, {
          at: now,
          ip: input.ip,
          action: 'sign_in.failed',
          detail: reserved.lockedUntil === null ? {} : { locked_until: new Date(reserved.lockedUntil).toISOString() },
        });
    });
  return reserved.lockedUntil === null ? { kind: 'refused' } : { kind: 'locked', until: reserved.lockedUntil };
}

/** A sign-in's entry in the audit log of the workspace `staff` is of, by them from `ip`. */
function auditSignIn(
  tx: Tx,
  staff: StaffRow,
  entry: { at: number; ip: string; action: 'sign_in.succeeded' | 'sign_in.failed'; detail?: Record<string, unknown> },
): Promise<void> {
  return recordAudit(tx, {
    workspaceId: staff.workspace_id,
    at: entry.at,
    by: { kind: 'staff', staffId: staff.id, email: staff.email, address: entry.ip },
    action: entry.action,
    target: staff.id,
    detail: entry.detail,
  });
}

/**
 * Refuses the attempt while a lock-out is on (not counted), else counts it as a failure and
 * starts the lock-outs it brings to their limit (lockedUntil: when they end, else null).
 */
async function reserve(
  tx: Tx,
  subjects: Subjects,
  by: { email: string; address: string },
  now: number,
): Promise<{ kind: 'refused'; until: number } | { kind: 'counted'; lockedUntil: number | null }> {
  await holdSubjects(tx, [subjects.email, subjects.address]);
  const locked = await lockedUntil(tx, [subjects.email, subjects.address], now);
  if (locked !== null) return { kind: 'refused', until: locked };
  const since = now - SIGN_IN_RULES.windowMs;
  // What no rule can count any more goes, so the tables stay as small as the last 15 minutes.
  await deleteFailuresBefore(tx, since);
  await recordFailure(tx, { id: randomBase62(22), ...by, at: now });
  const until = now + SIGN_IN_RULES.lockMs;
  const emailFull =
    (await countFailures(tx, { column: 'email', value: by.email }, since)) >= SIGN_IN_RULES.emailFailures;
  const addressFull =
    (await countFailures(tx, { column: 'address', value: by.address }, since)) >= SIGN_IN_RULES.addressFailures;
  if (emailFull) await lockUntil(tx, subjects.email, until);
  if (addressFull) await lockUntil(tx, subjects.address, until);
  return { kind: 'counted', lockedUntil: emailFull || addressFull ? until : null };
}
