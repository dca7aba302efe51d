import type { Storage } from '../db/index.ts';
import type { MailSettings } from '../jobs/mailer.ts';
import type { Clock } from '../lib/time.ts';
import type { LimitStore } from '../limits/limit-store.ts';
import type { WebhookPolicy } from '../resources/webhooks/webhook.service.ts';

/** What the console plugin and each of its route files are given (console.plugin.ts). */
export interface ConsoleOptions {
  storage: Pick<Storage, 'db' | 'engine' | 'write'>;
  clock: Clock;
  limits: LimitStore;
  /** Whether emails go to an SMTP server (else they wait in the outbox). */
  smtp: boolean;
  /** How invitation emails go out, and the address their links start with (BASE_URL). */
  mail: MailSettings & { baseUrl: string };
  /** WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE, for the endpoints made here. */
  webhooks: WebhookPolicy;
}
