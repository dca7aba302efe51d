import { signWebhook } from '../lib/webhook-signature.ts';
import type { AttemptOutcome, ClaimedDelivery } from '../resources/webhooks/webhook-delivery.repo.ts';
import { payloadFor } from '../resources/webhooks/webhook-payload.model.ts';
import { postWebhook, type AttemptResult } from './webhook-sender.ts';
import type { WebhookWorkerDeps } from './webhook-worker-deps.ts';

/** A delivery this process claimed, held under the lease of its claim. */
export interface Held {
  claimed: ClaimedDelivery;
  lease: number;
  /** Transactions that failed to record it so far. */
  failures?: number;
}

export interface Finished extends Held {
  result: AttemptResult;
  outcome: AttemptOutcome;
  at: number;
}

type AttemptDeps = Pick<WebhookWorkerDeps, 'clock' | 'allowPrivate' | 'retrySchedule' | 'send'>;

/** One attempt at a held delivery, signed with the endpoint's secrets, and what it comes to. */
export async function attemptDelivery(deps: AttemptDeps, held: Held): Promise<Finished> {
  const { event, endpoint } = held.claimed;
  const now = deps.clock();
  let result: AttemptResult;
  if (endpoint.status !== 'enabled') {
    result = { ok: false, status: null, error: 'endpoint disabled' };
  } else {
    const body = payloadFor(event.payload, endpoint.contacts_masked === 1);
    const timestamp = Math.floor(now / 1000);
    const secrets = [endpoint.secret];
    if (endpoint.previous_secret && (endpoint.previous_secret_expires_at ?? 0) > now)
      secrets.push(endpoint.previous_secret);
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secrets, event.id, timestamp, body),
      'content-type': 'application/json',
    };
    try {
      result = await (deps.send ?? postWebhook)(endpoint.url, body, headers, {
        allowPrivate: deps.allowPrivate,
      });
    } catch (err) {
      result = { ok: false, status: null, error: String((err as Error)?.message ?? err).slice(0, 500) };
    }
  }
  const at = deps.clock();
  return {
    ...held,
    result,
    at,
    outcome: outcomeOf(deps.retrySchedule, held.claimed.delivery.attempts + 1, result, at),
  };
}

/** Delivered; or due again after the schedule's next step; or, past its last, failed. */
function outcomeOf(
  retrySchedule: readonly number[],
  attempts: number,
  result: AttemptResult,
  now: number,
): AttemptOutcome {
  if (result.ok) return { status: 'delivered', lastStatus: result.status, lastError: null, nextAttemptAt: null };
  const wait = retrySchedule[attempts - 1];
  return wait === undefined
    ? { status: 'failed', lastStatus: result.status, lastError: result.error, nextAttemptAt: null }
    : { status: 'pending', lastStatus: result.status, lastError: result.error, nextAttemptAt: now + wait * 1000 };
}
