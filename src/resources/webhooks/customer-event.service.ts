import type { Scope } from '../actor.model.ts';
import type { ChangeInput } from '../changes/change-log.repo.ts';
import { readCustomerJson } from '../customers/customer-json.repo.ts';
import type { Tx } from '../writes/write.pipeline.ts';
import { customerEventType, earliestBefore, previousAttributes, removedMemberships } from './customer-event.model.ts';
import { vocabularyNames } from './vocabulary.repo.ts';
import type { Engine } from '../../db/dialects/types.ts';
import type { WebhookEndpointTable } from '../../db/schema.ts';
import { endpointsFor, takesAny, writeEvents, type NewEvent } from './webhook-event.service.ts';

const CUSTOMER_TYPES = ['customer.created', 'customer.updated', 'customer.deleted'];

/**
 * The webhook events of a write's customer changes, in its transaction (every writer: the
 * API's writes and undo through the write pipeline, the import). `data.object` is read with
 * the API's own read path inside the transaction, so it is what GET shows after the change.
 * `known.enabled`: the scope's enabled endpoints when the writer has read them already (the
 * pipeline reads them with its change-log rows); looked up when absent. `known.records`:
 * customers' JSON the write already has (Written.records), not read again. With no
 * endpoint to send them to, nothing is read or written.
 */
export async function recordCustomerEvents(
  tx: Tx,
  engine: Engine,
  scope: Scope,
  changes: readonly ChangeInput[],
  known: { enabled?: readonly WebhookEndpointTable[]; records?: ReadonlyMap<string, string> } = {},
): Promise<void> {
  const { enabled, records } = known;
  if (changes.length === 0) return;
  const endpoints = enabled
    ? enabled.filter((e) => takesAny(e, CUSTOMER_TYPES))
    : await endpointsFor(tx, scope, CUSTOMER_TYPES);
  if (endpoints.length === 0) return;
  const byCustomer = new Map<string, ChangeInput[]>();
  for (const change of changes) {
    const list = byCustomer.get(change.customerId);
    if (list) list.push(change);
    else byCustomer.set(change.customerId, [change]);
  }
  const events: NewEvent[] = [];
  for (const [id, own] of byCustomer) {
    const type = customerEventType(own);
    const at = Math.max(...own.map((c) => c.at));
    if (type === 'customer.deleted') {
      events.push({ type, at, object: { id, object: 'customer', deleted: true } });
      continue;
    }
    const json = records?.get(id) ?? (await readRecord(tx, scope, id, at));
    if (json === undefined) continue;
    if (type === 'customer.created') {
      events.push({ type, at, objectJson: json });
      continue;
    }
    const object = JSON.parse(json) as Record<string, unknown>;
    const before = earliestBefore(own);
    const removed = removedMemberships(before);
    const names = await vocabularyNames(tx, scope.workspaceId, removed);
    events.push({ type, at, objectJson: json, previous: previousAttributes(object, before, names) });
  }
  await writeEvents(tx, engine, scope, endpoints, events);
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
