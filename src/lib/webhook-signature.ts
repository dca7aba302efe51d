import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signatures (the published specification, version 1): HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the secret's base64-decoded bytes
 * (after `whsec_`), sent as `v1,<base64>`; several secrets sign side by side, space separated.
 */
export function signWebhook(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
