import type { VenueClient } from '../client.ts';
import type { WebhookFeedEvent } from '../webhook-events.ts';
import { type Output, sleep } from './output.ts';

/**
 * `trigger <type>`: makes the change that raises an event of that type on a throwaway test
 * customer, through the API as any integration would, and prints the event's id.
 */

export const TRIGGERS = ['customer.created', 'customer.updated', 'customer.deleted'] as const;
export type Trigger = (typeof TRIGGERS)[number];

export const isTrigger = (value: string): value is Trigger => (TRIGGERS as readonly string[]).includes(value);

/** The event commits with its change, so the first read should find it; the next reads cover an API whose reads lag its writes. */
const FIND_FOR_MS = 10_000;
const FIND_EVERY_MS = 250;

export async function trigger(client: VenueClient, type: Trigger, out: Output, signal: AbortSignal): Promise<number> {
  const made = await client.customers.create({ first_name: 'Trigger', last_name: 'Test' }, { signal });
  if (type === 'customer.updated') {
    await client.customers.update(made.id, { nickname: 'Triggered' }, { ifMatch: made.version, signal });
  } else if (type === 'customer.deleted') {
    await client.customers.delete(made.id, { signal });
  }
  // The customer's created_at is the server's clock, as its events' are: no skew with this host's.
  const since = new Date(Date.parse(made.created_at) - 1_000).toISOString();
  const event = await findEvent(client, type, made.id, since, signal);
  if (!event) {
    out.error(`The ${type} event of ${made.id} was not in the events feed after ${FIND_FOR_MS / 1000} s.`);
    return 1;
  }
  out.print(event.id);
  return 0;
}

async function findEvent(
  client: VenueClient,
  type: Trigger,
  customerId: string,
  since: string,
  signal: AbortSignal,
): Promise<WebhookFeedEvent | undefined> {
  const deadline = Date.now() + FIND_FOR_MS;
  while (!signal.aborted) {
    for await (const event of client.webhookEvents.list({ type, created_since: since, limit: 100 }, { signal })) {
      if (event.data.object.id === customerId) return event;
    }
    if (Date.now() >= deadline) return undefined;
    await sleep(FIND_EVERY_MS, signal);
  }
  return undefined;
}
