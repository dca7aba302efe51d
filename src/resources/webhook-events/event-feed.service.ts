import type { Queryable } from '../../db/schema.ts';
import { invalid, notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import { type EventShape, maskEvent } from '../../lib/mask.ts';
import { parseInstantWithOffset } from '../../lib/time.ts';
import type { Actor } from '../actor.model.ts';
import { JsonText } from '../json-text.model.ts';
import type { Collection } from '../keys/key.model.ts';
import { emptyPage, finishPage, pageText, planPage } from '../paging.model.ts';
import { EVENT_TYPES } from './event.schema.ts';
import { type FeedRow, findEvent, pageEvents } from './event-feed.repo.ts';

/** The events feed (DECISIONS "Events feed"): a key reads its mode's events of the records it may read. */

/** Every type the feed holds: `webhook.test` events are deliveries only. */
export const FEED_TYPES = EVENT_TYPES.filter((type) => type !== 'webhook.test');

/** The collection whose records an event type is about: `gift_card.created` is about gift-cards. */
const COLLECTION_OF: Record<string, Collection> = {
  customer: 'customers',
  booking: 'bookings',
  order: 'orders',
  ticket: 'tickets',
  gift_card: 'gift-cards',
  venue: 'venues',
  activity: 'activities',
  package: 'packages',
  event: 'events',
  list: 'lists',
  tag: 'tags',
};

/** What a key may read decides which events it sees: a restricted key without customers sees no `customer.*`. */
export type Readable = readonly Collection[];

const readable = (canRead: Readable, type: string) => {
  const collection = COLLECTION_OF[type.split('.', 1)[0]!];
  return collection !== undefined && canRead.includes(collection);
};

/** The customer a `customer.created` or `.updated` event shows (its payload is written by event.model.ts). */
const CUSTOMER_SHOWN =
  /^\{"id":"whe_\w+","object":"webhook_event","type":"customer\.(?:created|updated)".*?"data":\{"object":\{"id":"(cus_\w+)"/;

/** The customers a page of events sends, for the unusual-activity count (DECISIONS "Unusual activity"). */
const customersIn = (rows: readonly FeedRow[]) => rows.flatMap((row) => CUSTOMER_SHOWN.exec(row.payload)?.[1] ?? []);

/** The event as this key sees it: masked for a `contacts_masked` key, as its records are. */
const shown = (actor: Actor, row: FeedRow) =>
  actor.contactsMasked ? JSON.stringify(maskEvent(JSON.parse(row.payload) as EventShape)) : row.payload;

export interface FeedParams {
  limit?: number;
  starting_after?: string;
  type?: string;
  created_since?: string;
}

function typesAsked(raw: string | undefined): string[] | null {
  if (raw === undefined) return null;
  const types = [...new Set(raw.split(',').map((t) => t.trim()))];
  const unknown = types.filter((t) => !FEED_TYPES.includes(t));
  if (unknown.length > 0 || types.length === 0) {
    const message = `unknown event type ${unknown.join(', ') || '(empty)'}`;
    throw invalid(`type: ${message}; the feed's types: ${FEED_TYPES.join(', ')}.`, [{ field: 'type', message }]);
  }
  return types;
}

function sinceAsked(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const at = parseInstantWithOffset(raw);
  if (at === null) {
    throw invalid('created_since must be an ISO 8601 instant with an offset, e.g. 2026-10-08T00:00:00Z.', [
      { field: 'created_since', message: 'must be ISO 8601 with an offset' },
    ]);
  }
  return at;
}

export async function listEvents(
  db: Queryable,
  actor: Actor,
  canRead: Readable,
  params: FeedParams,
): Promise<JsonText> {
  const asked = typesAsked(params.type);
  const createdSince = sinceAsked(params.created_since);
  const filters = { type: asked?.join(',') ?? null, created_since: createdSince };
  const plan = planPage(
    'webhook_events',
    { limit: params.limit, starting_after: params.starting_after },
    filters,
    actor.pageSize,
  );
  const types = (asked ?? FEED_TYPES).filter((type) => readable(canRead, type));
  if (types.length === 0) return new JsonText(pageText(emptyPage()), []);
  const rows = await pageEvents(db, actor, { types, createdSince, after: plan.after, take: plan.limit + 1 });
  const page = finishPage(plan, rows, (row) => shown(actor, row));
  return new JsonText(pageText(page), customersIn(rows.slice(0, plan.limit)));
}

export async function getEvent(db: Queryable, actor: Actor, canRead: Readable, id: string): Promise<JsonText> {
  const row = isIdOf('webhook_event', id) ? await findEvent(db, actor, id) : undefined;
  if (!row || row.type === 'webhook.test' || !readable(canRead, row.type))
    throw notFound(`No event ${id.slice(0, 64)}.`);
  return new JsonText(shown(actor, row), customersIn([row]));
}
