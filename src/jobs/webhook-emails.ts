import type { Email } from './mailer.ts';

// What the key managers are told about a failing webhook endpoint (DECISIONS "Webhooks" and "Events feed"):
// a warning after a day of failures, while there is time to fix the receiver, and the disable after three.

/** What an attempt's outcome did to its endpoint: disabled it, or warned of its run of failures. */
export type FailingEndpoint = { kind: 'disabled' } | { kind: 'warned'; since: number; disableAt: number };

const iso = (ms: number) => new Date(ms).toISOString();

export function failingEndpointEmail(to: string, id: string, url: string, failing: FailingEndpoint): Email {
  if (failing.kind === 'disabled') {
    const text = [
      `Every delivery to the webhook endpoint ${url} (${id}) has failed for 3 days, so it was disabled.`,
      '',
      "Its deliveries are listed on its page in the workspace's developer settings (Webhooks).",
      `When the receiver works again, enable the endpoint there (or run: venue-api webhooks enable ${id})`,
      `and resend the deliveries it missed (venue-api webhooks resend ${id} --since <when it began failing>).`,
    ];
    return { to, subject: `Webhook endpoint ${url} was disabled`, text: text.join('\n') };
  }
  const text = [
    `Every delivery to the webhook endpoint ${url} (${id}) has failed since ${iso(failing.since)}.`,
    `If none succeeds, it will be disabled after ${iso(failing.disableAt)}; one success ends the count.`,
    '',
    "Its deliveries and their errors are listed on its page in the workspace's developer settings (Webhooks).",
    'Once the receiver works again, resend the failed deliveries from that page',
    `(or run: venue-api webhooks resend ${id} --since ${iso(failing.since)}).`,
  ];
  return { to, subject: `Webhook endpoint ${url} is failing`, text: text.join('\n') };
}
