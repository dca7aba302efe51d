import type { WebhookFeedEvent } from '../webhook-events.ts';
import { signWebhook } from '../webhooks.ts';
import { rootCause } from './output.ts';

/** One event posted to the local receiver as the API would deliver it (DECISIONS "Webhooks": headers, body). */

/** As long as the API gives a receiver to answer a delivery. */
const ANSWER_WITHIN_MS = 10_000;

/** A session secret as the API makes an endpoint's: `whsec_` and 24 random bytes in base64. */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/**
 * POSTs the event signed with `secret` and answers the line `listen` prints for it:
 * `<time> <type> <id> -> <status> (<ms> ms)`, the connection error in place of the status.
 * Throws only when `signal` (the session's stop) aborted it.
 */
export async function forward(url: string, event: WebhookFeedEvent, secret: string, signal: AbortSignal) {
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = new Date();
  let outcome: string;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'venue-api-client listen',
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': await signWebhook(body, event.id, timestamp, secret),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(ANSWER_WITHIN_MS)]),
    });
    // Read to the end, so the connection is free for the next event.
    await res.arrayBuffer().catch(() => undefined);
    outcome = String(res.status);
  } catch (err) {
    if (signal.aborted) throw err;
    outcome = reasonOf(err);
  }
  const ms = Date.now() - started.getTime();
  return `${started.toISOString()} ${event.type} ${event.id} -> ${outcome} (${ms} ms)`;
}

function reasonOf(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer within ${ANSWER_WITHIN_MS / 1000} s`;
  return err instanceof Error ? rootCause(err) : String(err);
}
