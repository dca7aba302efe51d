import type { VenueClient } from '../client.ts';
import { VenueApiError } from '../errors.ts';
import type { WebhookFeedEvent } from '../webhook-events.ts';
import { forward, newSecret } from './forward.ts';
import { describeError, type Output, sleep } from './output.ts';

/**
 * `listen --forward-to URL [--events a,b]`: follows the events feed from now and forwards
 * each event, once, to a local receiver, signed with a secret made for the session.
 */

/**
 * An event's `created_at` is taken before its change commits, so it can reach the feed after
 * events made later: each poll reads this far back again, and the ids already forwarded are
 * remembered for as long as a poll can see them.
 */
const WINDOW_MS = 30_000;
const POLL_EVERY_MS = 1_000;

/** The key cannot read the feed (401, 403) or the request is wrong (400, an unknown type): trying again cannot help. */
const FATAL = new Set([400, 401, 403]);

export interface ListenOptions {
  forwardTo: string;
  /** `type=` of the feed: comma-separated types, or every type when absent. */
  events: string | undefined;
  signal: AbortSignal;
}

/** Runs until `signal` aborts (exit 0) or the feed refuses the key or the request (exit 1). */
export async function listen(client: VenueClient, options: ListenOptions, out: Output): Promise<number> {
  const { signal } = options;
  const secret = newSecret();
  out.print(`Ready. Signing secret: ${secret}`);
  const startedAt = Date.now();
  const forwarded = new Map<string, number>(); // event id -> its created_at
  while (!signal.aborted) {
    const since = Math.max(startedAt, Date.now() - WINDOW_MS);
    try {
      for (const event of await unseen(client, since, options, forwarded)) {
        forwarded.set(event.id, Date.parse(event.created_at));
        out.print(await forward(options.forwardTo, event, secret, signal));
      }
    } catch (err) {
      if (signal.aborted) break;
      out.error(`The events feed: ${describeError(err)}`);
      if (err instanceof VenueApiError && FATAL.has(err.status)) return 1;
    }
    // No later poll reads before `since`, so no event older can come again.
    for (const [id, createdAt] of forwarded) if (createdAt < since) forwarded.delete(id);
    await sleep(POLL_EVERY_MS, signal);
  }
  return 0;
}

/** The window's events not forwarded yet, oldest first (the feed answers newest first). */
async function unseen(
  client: VenueClient,
  since: number,
  options: ListenOptions,
  forwarded: Map<string, number>,
): Promise<WebhookFeedEvent[]> {
  const events: WebhookFeedEvent[] = [];
  const params = { created_since: new Date(since).toISOString(), type: options.events, limit: 100 };
  // No retries within a poll: the next poll is the retry.
  for await (const event of client.webhookEvents.list(params, { signal: options.signal, maxRetries: 0 })) {
    if (!forwarded.has(event.id)) events.push(event);
  }
  return events.reverse();
}
