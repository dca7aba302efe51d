import type { Writer } from '../db/write.ts';
import { newId } from '../lib/ids.ts';
import type { Clock } from '../lib/time.ts';
import { keepInOutbox } from './outbox.repo.ts';

/**
 * The one way the service emails people (pause and webhook notices, invitations): over SMTP
 * when SMTP_URL is set; otherwise, or when SMTP refuses one, the email is kept in the outbox
 * for the console to show, so no notice is ever lost silently.
 */
export interface Email {
  to: string;
  subject: string;
  text: string;
}

export interface MailSettings {
  smtpUrl: string | null;
  mailFrom: string;
}

/**
 * Sends (or keeps) each email, over one SMTP connection; answers how many went out over SMTP
 * and how many were kept. `ownersOnly` keeps an email whose body is a secret (an
 * invitation's link) off the notifications page of anyone but the workspace's owners.
 */
export async function sendOrKeep(
  store: Writer,
  clock: Clock,
  mail: MailSettings,
  workspaceId: string,
  emails: readonly Email[],
  options: { ownersOnly?: boolean } = {},
): Promise<{ sent: number; kept: number }> {
  const keep = (email: Email, error: string | null) =>
    store.write((tx) =>
      keepInOutbox(tx, {
        id: newId('email'),
        workspace_id: workspaceId,
        recipient: email.to,
        subject: email.subject,
        body: email.text,
        error,
        created_at: clock(),
        owners_only: options.ownersOnly ? 1 : 0,
      }),
    );
  if (!mail.smtpUrl) {
    for (const email of emails) await keep(email, null);
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
        await keep(email, err instanceof Error ? err.message : String(err));
      }
    }
  } finally {
    transport.close();
  }
  return { sent, kept: emails.length - sent };
}
