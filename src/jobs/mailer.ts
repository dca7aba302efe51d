import type { Writer } from '../db/write.ts';
import { newId } from '../lib/ids.ts';
import type { Clock } from '../lib/time.ts';
import { keepInOutbox } from './outbox.repo.ts';
import type { Email, MailSettings } from './pause-email.ts';

/**
 * One email to one person, as the pause emails go (pause-email.ts): over SMTP when SMTP_URL
 * is set; otherwise, or when SMTP refuses it, kept in the outbox for the console to show.
 * `ownersOnly` keeps an email whose body is a secret (an invitation's link) off the
 * notifications page of anyone but the workspace's owners.
 */
export async function sendOrKeep(
  store: Writer,
  clock: Clock,
  mail: MailSettings,
  workspaceId: string,
  email: Email,
  options: { ownersOnly?: boolean } = {},
): Promise<'sent' | 'kept'> {
  let error: string | null = null;
  if (mail.smtpUrl) {
    // Loaded only when SMTP is used: most starts never send a mail.
    const { default: nodemailer } = await import('nodemailer');
    const transport = nodemailer.createTransport(mail.smtpUrl);
    try {
      await transport.sendMail({ from: mail.mailFrom, to: email.to, subject: email.subject, text: email.text });
      return 'sent';
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    } finally {
      transport.close();
    }
  }
  await store.write((tx) =>
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
  return 'kept';
}
