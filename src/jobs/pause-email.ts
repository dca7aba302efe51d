import type { Writer } from '../db/write.ts';
import type { Clock } from '../lib/time.ts';
import { staffEmailsWithRoles } from '../resources/workspaces/workspace.repo.ts';
import { type Email, type MailSettings, sendOrKeep } from './mailer.ts';

/**
 * Tells the people who manage a workspace's keys that one was paused (SPEC "States and
 * transitions", DECISIONS "Unusual activity"): every staff member with role owner or
 * key_manager, by mailer.ts (over SMTP, or kept in the outbox).
 */
const KEY_MANAGER_ROLES = ['owner', 'key_manager'] as const;

export interface PausedKeyNotice {
  workspaceId: string;
  keyId: string;
  keyName: string;
  reason: string;
  pausedAt: number;
}

function pauseEmail(to: string, notice: PausedKeyNotice): Email {
  return {
    to,
    subject: `API key "${notice.keyName}" was paused for unusual activity`,
    text: [
      `The live API key "${notice.keyName}" (${notice.keyId}) was paused at ${new Date(notice.pausedAt).toISOString()}.`,
      '',
      `Why: ${notice.reason}`,
      '',
      'Every request with this key now gets 403 key_paused. If the activity was expected,',
      "resume the key on its page in the workspace's developer settings",
      `(or run: venue-api keys resume ${notice.keyId}). If not, revoke it and make a new one.`,
    ].join('\n'),
  };
}

/** Sends (or keeps) one email per key manager; answers how many went out over SMTP. */
export async function notifyKeyPaused(
  store: Writer,
  clock: Clock,
  mail: MailSettings,
  notice: PausedKeyNotice,
): Promise<{ sent: number; kept: number }> {
  return emailKeyManagers(store, clock, mail, notice.workspaceId, (to) => pauseEmail(to, notice));
}

/** One email to each key manager of the workspace, over SMTP or kept in the outbox. */
export async function emailKeyManagers(
  store: Writer,
  clock: Clock,
  mail: MailSettings,
  workspaceId: string,
  make: (to: string) => Email,
): Promise<{ sent: number; kept: number }> {
  const recipients = await staffEmailsWithRoles(store.db, workspaceId, KEY_MANAGER_ROLES);
  return sendOrKeep(store, clock, mail, workspaceId, recipients.map(make));
}
