import type { Tx } from '../../db/schema.ts';
import { groupBy } from '../../lib/group-by.ts';
import type { Scope } from '../actor.model.ts';
import type { ChangeInput } from '../changes/change.model.ts';
import { readCustomerJson } from '../customers/customer-json.repo.ts';
import {
  CUSTOMER_EVENT_TYPES,
  customerEventType,
  earliestBefore,
  previousAttributes,
  removedMemberships,
} from './customer-event.model.ts';
import { vocabularyNames } from './vocabulary.repo.ts';
import { enabledEndpoints } from './webhook-endpoint.repo.ts';
import { recordEvents, type NewEvent } from './webhook-event.service.ts';
import { takesAny } from './webhook.model.ts';

/**
 * The webhook events of a write's customer changes, one a customer, written with their
 * deliveries in the write's transaction (every writer: the write pipeline's hook, the
 * import). `data.object` is what GET shows after the change: the write's own answer where it
 * has one (`records`), else read with the API's read path inside the transaction. A scope
 * whose enabled endpoints take no customer event pays the one look-up. Answers whether it
 * wrote any delivery.
 */
export async function writeCustomerEvents(
  tx: Tx,
  scope: Scope,
  changes: readonly ChangeInput[],
  records?: ReadonlyMap<string, string>,
): Promise<boolean> {
  if (changes.length === 0) return false;
  const endpoints = (await enabledEndpoints(tx, scope)).filter((e) => takesAny(e, CUSTOMER_EVENT_TYPES));
  if (endpoints.length === 0) return false;
  const events: NewEvent[] = [];
  for (const [id, own] of groupBy(changes, (c) => c.customerId)) {
    const event = await customerEvent(tx, scope, id, own, records?.get(id));
    if (event !== undefined) events.push(event);
  }
  return (await recordEvents(tx, scope, events, endpoints)) > 0;
}

/** A customer's event from its changes; undefined when the customer is no longer there to show. */
async function customerEvent(
  tx: Tx,
  scope: Scope,
  id: string,
  own: readonly ChangeInput[],
  record: string | undefined,
): Promise<NewEvent | undefined> {
  const type = customerEventType(own);
  let at = 0;
  for (const c of own) at = Math.max(at, c.at);
  if (type === 'customer.deleted') return { type, at, object: { id, object: 'customer', deleted: true } };
  const json = record ?? (await readRecord(tx, scope, id, at));
  if (json === undefined) return undefined;
  if (type === 'customer.created') return { type, at, objectJson: json };
  const before = earliestBefore(own);
  const removed = removedMemberships(before);
  const names =
    removed.tags.length > 0 || removed.lists.length > 0
      ? await vocabularyNames(tx, scope.workspaceId, removed)
      : new Map<string, string>();
  const object = JSON.parse(json) as Record<string, unknown>;
  return { type, at, objectJson: json, previous: previousAttributes(object, before, names) };
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
