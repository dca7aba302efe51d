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
 * `enabled`: the scope's enabled endpoints when the writer has read them already (the
 * pipeline reads them with its change-log rows); looked up when absent. With no endpoint
 * to send them to, nothing is read or written.
 */
export async function recordCustomerEvents(
  tx: Tx,
  engine: Engine,
  scope: Scope,
  changes: readonly ChangeInput[],
  enabled?: readonly WebhookEndpointTable[],
): Promise<void> {
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
    const row = await readCustomerJson(
      tx,
      { workspaceId: scope.workspaceId, livemode: scope.livemode, clock: () => at },
      id,
    );
    if (!row) continue;
    const object = JSON.parse(row.record) as Record<string, unknown>;
    if (type === 'customer.created') {
      events.push({ type, at, object });
      continue;
    }
    const before = earliestBefore(own);
    const removed = removedMemberships(before);
    const names = await vocabularyNames(tx, scope.workspaceId, removed);
    events.push({ type, at, object, previous: previousAttributes(object, before, names) });
  }
  await writeEvents(tx, engine, scope, endpoints, events);
}
