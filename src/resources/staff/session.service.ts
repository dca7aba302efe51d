import { createHash, randomBytes } from 'node:crypto';
import { unavailableReason } from '../../db/unavailable.ts';
import type { Writer } from '../../db/write.ts';
import { MINUTE_MS, type Clock } from '../../lib/time.ts';
import type { StaffRole } from '../workspaces/workspace.service.ts';
import { deleteExpiredSessions, deleteSession, findSession, insertSession, touchSession } from './session.repo.ts';

/**
 * Console sessions: a random token in the cookie, its hash in the database, so the server
 * ends a session by deleting its row (sign-out, a password change) and every process sees it.
 * A session lasts 12 hours from sign-in, and ends sooner after 2 hours without a request.
 */
const SESSION_RULES = Object.freeze({ lifetimeMs: 12 * 60 * MINUTE_MS, idleMs: 2 * 60 * MINUTE_MS });

export interface StaffSession {
  staffId: string;
  workspaceId: string;
  workspaceName: string;
  email: string;
  name: string;
  role: StaffRole;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');

/** Starts a session and returns the token for the cookie (the database keeps only its hash). */
export async function startSession(store: Writer, clock: Clock, staffId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = clock();
  await store.write(async (tx) => {
    await deleteExpiredSessions(tx, now);
    await insertSession(tx, {
      token_hash: hashToken(token),
      staff_id: staffId,
      created_at: now,
      last_seen_at: now,
      expires_at: now + SESSION_RULES.lifetimeMs,
    });
  });
  return token;
}

/** The person a cookie's token signs in, or null when it names no live session. */
export async function resolveSession(
  store: Writer,
  clock: Clock,
  token: string | undefined,
): Promise<StaffSession | null> {
  if (!token || token.length > 100) return null;
  const hash = hashToken(token);
  const row = await findSession(store.db, hash);
  const now = clock();
  if (!row) return null;
  if (row.expires_at <= now || row.last_seen_at + SESSION_RULES.idleMs <= now) {
    await store.write((tx) => deleteSession(tx, hash));
    return null;
  }
  // Once a minute is enough to keep the idle clock honest without a write per page. A touch
  // that cannot be written (a full disk) does not stop the page: the next request tries again.
  if (now - row.last_seen_at >= MINUTE_MS)
    await store
      .write((tx) => touchSession(tx, hash, now))
      .catch((err: unknown) => {
        if (!unavailableReason(err)) throw err;
      });
  return {
    staffId: row.staff_id,
    workspaceId: row.workspace_id,
    workspaceName: row.workspace_name,
    email: row.email,
    name: row.name,
    role: row.role,
  };
}

export async function endSession(store: Writer, token: string | undefined): Promise<void> {
  if (token) await store.write((tx) => deleteSession(tx, hashToken(token)));
}
