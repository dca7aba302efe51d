import type { Writer } from '../../db/write.ts';
import { randomBase62 } from '../../lib/ids.ts';
import { decoyPasswordHash, hashPassword, needsRehash, verifyPassword } from '../../lib/password.ts';
import { MINUTE_MS, type Clock } from '../../lib/time.ts';
import { addressBucket } from '../../limits/address.ts';
import { recordAudit } from '../audit/audit.service.ts';
import {
  clearEmailFailures,
  countFailures,
  deleteFailuresBefore,
  lockedUntil,
  lockUntil,
  recordFailure,
} from './sign-in.repo.ts';
import { replacePasswordHash, staffWithEmail, type StaffRow } from './staff.repo.ts';

/**
 * Staff sign-in (docs/console.md): after 10 failed sign-ins for one email within 15 minutes, that
 * email cannot sign in for 15 minutes, with the right password too. One address is held to
 * 50 failures in 15 minutes across all emails, so nobody walks a list of addresses either.
 * A refused attempt during a lock-out is not counted, so the lock ends when it said it would.
 */
const SIGN_IN_RULES = Object.freeze({
  emailFailures: 10,
  addressFailures: 50,
  windowMs: 15 * MINUTE_MS,
  lockMs: 15 * MINUTE_MS,
});

export type SignInResult =
  | { kind: 'signed_in'; staff: StaffRow }
  | { kind: 'refused' }
  | { kind: 'locked'; until: number };

export function normaliseEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

const emailSubject = (email: string) => `email:${email}`;
const addressSubject = (ip: string) => `address:${addressBucket(ip)}`;

export async function signIn(
  store: Writer,
  clock: Clock,
  input: { email: string; password: string; ip: string },
): Promise<SignInResult> {
  const { db } = store;
  const email = normaliseEmail(input.email).slice(0, 320);
  const address = addressBucket(input.ip);
  const now = clock();
  const locked = await lockedUntil(db, [emailSubject(email), addressSubject(input.ip)], now);
  if (locked !== null) return { kind: 'locked', until: locked };

  // Every candidate is checked (the decoy when there is none), so an unknown email costs as long as a known one.
  const candidates = email ? await staffWithEmail(db, email) : [];
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
      await clearEmailFailures(tx, email);
      if (upgraded && signedIn.password_hash)
        await replacePasswordHash(tx, signedIn.id, signedIn.password_hash, upgraded);
      await recordAudit(tx, {
        workspaceId: signedIn.workspace_id,
        at: now,
        by: { kind: 'staff', staffId: signedIn.id, email: signedIn.email, address: input.ip },
        action: 'sign_in.succeeded',
        target: signedIn.id,
      });
    });
    return { kind: 'signed_in', staff: upgraded ? { ...signedIn, password_hash: upgraded } : signedIn };
  }

  const since = now - SIGN_IN_RULES.windowMs;
  return store.write(async (tx): Promise<SignInResult> => {
    // What no rule can count any more goes, so the tables stay as small as the last 15 minutes.
    await deleteFailuresBefore(tx, since);
    await recordFailure(tx, { id: randomBase62(22), email, address, at: now });
    const until = now + SIGN_IN_RULES.lockMs;
    let result: SignInResult = { kind: 'refused' };
    if ((await countFailures(tx, { column: 'email', value: email }, since)) >= SIGN_IN_RULES.emailFailures) {
      await lockUntil(tx, emailSubject(email), until);
      result = { kind: 'locked', until };
    } else if (
      (await countFailures(tx, { column: 'address', value: address }, since)) >= SIGN_IN_RULES.addressFailures
    ) {
      await lockUntil(tx, addressSubject(input.ip), until);
      result = { kind: 'locked', until };
    }
    // In the audit log of every workspace the email is staff of; an unknown email has none.
    // Attempts a running lock-out refuses are not written again (the lock's start is).
    for (const staff of candidates)
      await recordAudit(tx, {
        workspaceId: staff.workspace_id,
        at: now,
        by: { kind: 'staff', staffId: staff.id, email: staff.email, address: input.ip },
        action: 'sign_in.failed',
        target: staff.id,
        detail: result.kind === 'locked' ? { locked_until: new Date(until).toISOString() } : {},
      });
    return result;
  });
}
