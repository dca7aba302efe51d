import type { Db } from '../db/schema.ts';
import type { Writer } from '../db/write.ts';
import { newId } from '../lib/ids.ts';
import type { Clock } from '../lib/time.ts';
import { staffEmailsWithRoles } from '../resources/workspaces/workspace.repo.ts';
import { keepInOutbox } from './outbox.repo.ts';

/**
 * Tells the people who manage a workspace's keys that one was paused (SPEC "States and
 * transitions", DECISIONS "Unusual activity"): every staff member with role owner or
 * key_manager. Over SMTP when SMTP_URL is set; otherwise, or when SMTP refuses, the email
 * is kept in the outbox for the console to show, so no notice is ever lost silently.
 */
export const KEY_MANAGER_ROLES = ['owner', 'key_manager'] as const;

export interface PausedKeyNotice {
  workspaceId: string;
  keyId: string;
  keyName: string;
  reason: string;
  pausedAt: number;
}

export interface Email {
  to: string;
  subject: string;
  text: string;
}

export interface MailSettings {
  smtpUrl: string | null;
  mailFrom: string;
}

export function pauseEmail(to: string, notice: PausedKeyNotice): Email {
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

export async function keyManagerEmails(db: Db, workspaceId: string): Promise<string[]> {
  return staffEmailsWithRoles(db, workspaceId, KEY_MANAGER_ROLES);
}

async function keep(
  store: Writer,
  clock: Clock,
  workspaceId: string,
  email: Email,
  error: string | null,
): Promise<void> {
  await store.write((tx) =>
    keepInOutbox(tx, {
      id: newId('email'),
      workspace_id: workspaceId,
      recipient: email.to,
      subject: email.subject,
      body: email.text,
      error,
      created_at: clock(),
    }),
  );
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
  const recipients = await keyManagerEmails(store.db, workspaceId);
  const emails = recipients.map(make);
  if (!mail.smtpUrl) {
    for (const email of emails) await keep(store, clock, workspaceId, email, null);
    return { sent: 0, kept: emails.length };
  }
  // Loaded only when SMTP is used: most starts never send a mail.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport(mail.smtpUrl);
  let sent = 0;
  try {
    for (const email of emails) {
      try {
        await transport.sendMail({ from: mail.mailFrom, to: email.to, subject: email.subject, text: email.text });
        sent++;
      } catch (err) {
        await keep(store, clock, workspaceId, email, err instanceof Error ? err.message : String(err));
      }
    }
  } finally {
    transport.close();
  }
  return { sent, kept: emails.length - sent };
}
