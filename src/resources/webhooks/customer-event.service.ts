import { groupBy } from '../../lib/group-by.ts';
import type { Scope } from '../actor.model.ts';
import type { ChangeInput } from '../changes/change.model.ts';
import { readCustomerJson } from '../customers/customer-json.repo.ts';
import type { Tx } from '../writes/write.pipeline.ts';
import { takesAny, type CarriedEvent } from './webhook.model.ts';
import {
  CUSTOMER_EVENT_TYPES,
  customerEventType,
  earliestBefore,
  previousAttributes,
  removedMemberships,
} from './customer-event.model.ts';
import { vocabularyNames } from './vocabulary.repo.ts';
import type { EndpointTaker } from './webhook-endpoint.repo.ts';
import type { Engine } from '../../db/dialects/types.ts';
import { completeCarried, endpointsFor, writeEvents, type NewEvent } from './webhook-event.service.ts';

/** What a writer knows already, so the events need not look it up again. */
export interface KnownToEvents {
  /** The scope's enabled endpoints (the pipeline reads them with its change-log rows). */
  enabled?: readonly EndpointTaker[];
  /** Customers' JSON the write has at hand (Written.records). */
  records?: ReadonlyMap<string, string>;
  /** The write's one event, written by its last statement with deliveries to these endpoints. */
  carried?: { event: CarriedEvent; deliveredTo: ReadonlySet<string> };
}

/**
 * The webhook events of a write's customer changes, in its transaction (every writer: the
 * API's writes and undo through the write pipeline, the import). `data.object` is what GET
 * shows after the change: the write's own answer where it has one, else read with the API's
 * read path inside the transaction. With no endpoint to send them to, nothing is read or
 * written.
 */
export async function recordCustomerEvents(
  tx: Tx,
  engine: Engine,
  scope: Scope,
  changes: readonly ChangeInput[],
  known: KnownToEvents = {},
): Promise<void> {
  const { enabled, records, carried } = known;
  if (changes.length === 0) return;
  const endpoints = enabled
    ? enabled.filter((e) => takesAny(e, CUSTOMER_EVENT_TYPES))
    : await endpointsFor(tx, scope, CUSTOMER_EVENT_TYPES);
  if (carried) {
    await completeCarried(tx, engine, endpoints, carried.event, carried.deliveredTo);
    return;
  }
  if (endpoints.length === 0) return;
  const events: NewEvent[] = [];
  for (const [id, own] of groupBy(changes, (c) => c.customerId)) {
    const type = customerEventType(own);
    const at = Math.max(...own.map((c) => c.at));
    const json = type === 'customer.deleted' ? '' : (records?.get(id) ?? (await readRecord(tx, scope, id, at)));
    if (json === undefined) continue;
    const names = await vocabularyNames(tx, scope.workspaceId, removedMemberships(earliestBefore(own)));
    events.push(customerEvent(id, own, json, names));
  }
  await writeEvents(tx, engine, scope, endpoints, events);
}

/**
 * The write's one customer event when it can be made without reading: one customer, its
 * record at hand, no membership removed (whose name would be read). Null otherwise.
 */
export function eventAtHand(changes: readonly ChangeInput[], records?: ReadonlyMap<string, string>): NewEvent | null {
  const grouped = groupBy(changes, (c) => c.customerId);
  const [only] = grouped;
  if (grouped.size !== 1 || only === undefined) return null;
  const [id, own] = only;
  const type = customerEventType(own);
  const json = type === 'customer.deleted' ? '' : records?.get(id);
  if (json === undefined) return null;
  const removed = removedMemberships(earliestBefore(own));
  if (removed.tags.length > 0 || removed.lists.length > 0) return null;
  return customerEvent(id, own, json, new Map());
}

/** A customer's event from its changes and its record's JSON ('' when deleted). */
function customerEvent(
  id: string,
  own: readonly ChangeInput[],
  json: string,
  names: ReadonlyMap<string, string>,
): NewEvent {
  const type = customerEventType(own);
  const at = Math.max(...own.map((c) => c.at));
  if (type === 'customer.deleted') return { type, at, object: { id, object: 'customer', deleted: true } };
  if (type === 'customer.created') return { type, at, objectJson: json };
  const object = JSON.parse(json) as Record<string, unknown>;
  return { type, at, objectJson: json, previous: previousAttributes(object, earliestBefore(own), names) };
}

/** The customer as GET shows it at `at`, read with the API's own read path. */
async function readRecord(tx: Tx, scope: Scope, id: string, at: number): Promise<string | undefined> {
  const row = await readCustomerJson(
    tx,
    { workspaceId: scope.workspaceId, livemode: scope.livemode, clock: () => at },
    id,
  );
  return row?.record;
}
