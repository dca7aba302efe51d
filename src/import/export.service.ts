import type { Storage } from '../db/index.ts';
import { systemClock, type Clock } from '../lib/time.ts';
import { activities } from '../resources/activities/activity.collection.ts';
import { personActor, type Actor } from '../resources/actor.model.ts';
import { bookings } from '../resources/bookings/booking.collection.ts';
import { listColumnRows } from '../resources/column.service.ts';
import { listCustomers } from '../resources/customers/customer-read.service.ts';
import { listDocs, type DocCollection } from '../resources/doc.service.ts';
import { events } from '../resources/events/event.collection.ts';
import { giftCards } from '../resources/gift-cards/gift-card.collection.ts';
import { lists } from '../resources/lists/list.collection.ts';
import { orders } from '../resources/orders/order.collection.ts';
import { packages } from '../resources/packages/package.collection.ts';
import type { Page, PageParams } from '../resources/paging.model.ts';
import { tags } from '../resources/tags/tag.collection.ts';
import { tickets } from '../resources/tickets/ticket.collection.ts';
import { venues } from '../resources/venues/venue.collection.ts';
import { getWorkspace } from '../resources/workspaces/workspace.service.ts';
import { OBJECT_NAMES, RECORD_KINDS, type ObjectName } from './record-kinds.ts';

/**
 * `venue-api export`: a workspace's records as NDJSON in the import's own line shape (one
 * record a line, as the API's GET answers it, with its `object`), so that importing the
 * output into another workspace or database recreates them. Each collection is read through
 * the same list services the API pages with, an operator reading in full (no masking), so
 * a record is exactly what a client sees.
 */

type Rec = Record<string, unknown>;
type Lister = (storage: Storage, actor: Actor, params: PageParams) => Promise<Page<Rec>>;

/** A doc collection's lister; its filters are all left unset. */
const docs =
  (spec: DocCollection<Record<string, never>> | DocCollection<Record<string, unknown>>): Lister =>
  (storage, actor, params) =>
    listDocs(storage.db, spec as DocCollection<Record<string, unknown>>, actor, { ...params });

/** How each kind of record the import accepts is listed. */
const LISTERS: Record<ObjectName, Lister> = {
  venue: docs(venues),
  tag: (storage, actor, params) => listColumnRows(storage.db, tags, actor, params) as Promise<Page<Rec>>,
  list: (storage, actor, params) => listColumnRows(storage.db, lists, actor, params) as Promise<Page<Rec>>,
  activity: docs(activities),
  package: docs(packages),
  event: docs(events),
  customer: async (storage, actor, params) =>
    JSON.parse((await listCustomers(storage.db, actor, params)).text) as Page<Rec>,
  booking: docs(bookings),
  order: docs(orders),
  ticket: docs(tickets),
  gift_card: docs(giftCards),
};

/** Pages of the largest size a list allows. */
const PAGE = 100;

export interface ExportInput {
  workspaceId: string;
  /** One mode's records (and the shared collections); both modes when unset. */
  mode?: 'live' | 'test';
  clock?: Clock;
}

/**
 * The lines, in the import's tier order (what a record points at comes first). Shared
 * collections once; test-aware ones in each mode asked for; tickets and gift cards, which
 * have live rows only, with the live mode.
 */
export async function* exportLines(storage: Storage, input: ExportInput): AsyncIterable<string> {
  const clock = input.clock ?? systemClock;
  const { id: workspaceId } = await getWorkspace(storage.db, input.workspaceId);
  const modes = input.mode ? [input.mode === 'live'] : [true, false];
  const kinds = [...OBJECT_NAMES].sort((a, b) => RECORD_KINDS[a].tier - RECORD_KINDS[b].tier);
  for (const object of kinds) {
    const { mode } = RECORD_KINDS[object];
    const inModes = mode === 'mode' ? modes : mode === 'live-only' ? modes.filter(Boolean) : [modes[0]!];
    for (const livemode of inModes) {
      const actor = personActor('operator', 'export', { workspaceId, livemode }, clock);
      let after: string | undefined;
      do {
        const page = await LISTERS[object](storage, actor, { limit: PAGE, starting_after: after });
        for (const record of page.data) yield JSON.stringify(record);
        after = page.has_more ? page.next_cursor : undefined;
      } while (after);
    }
  }
}
