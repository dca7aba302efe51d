import type { Engine } from '../../db/dialects/types.ts';
import { PreparedQuery, preparedInsert } from '../../db/prepared.ts';
import type { Tx } from '../../db/schema.ts';
import type { WebhookDeliveryTable, WebhookEventTable } from '../../db/tables/webhook.ts';
import { deliveriesWritten } from './webhook-delivery.repo.ts';

/** The event outbox and its deliveries (011-webhooks). */

// Written by every write a webhook endpoint listens to: compiled once (db/prepared.ts).
const INSERT_EVENT = preparedInsert('webhook_events');
const INSERT_DELIVERY = preparedInsert('webhook_deliveries');

type Prefixed = Record<`event_${string}` | `delivery_${string}`, unknown>;

/** The event in the WITH of its one delivery's INSERT (Engine.insertsInWith). Shape: both rows' columns. */
const EVENT_WITH_DELIVERY = new PreparedQuery<Prefixed, never>((db, param, shape) => {
  const [event = '', delivery = ''] = shape.split('|');
  const row = (prefix: 'event_' | 'delivery_', columns: string) =>
    Object.fromEntries(columns.split(',').map((c) => [c, param(`${prefix}${c}`)])) as never;
  return db
    .with('event', (w) => w.insertInto('webhook_events').values(row('event_', event)))
    .insertInto('webhook_deliveries')
    .values(row('delivery_', delivery));
});

/**
 * An event and its deliveries, in the transaction of the change it describes (the
 * transactional outbox). The usual case, one endpoint, is one statement where the engine
 * can insert in a WITH; otherwise one statement a row.
 */
export async function insertOutbox(
  tx: Tx,
  engine: Engine,
  event: WebhookEventTable,
  deliveries: readonly WebhookDeliveryTable[],
): Promise<void> {
  const [only] = deliveries;
  if (engine.insertsInWith && deliveries.length === 1 && only !== undefined) {
    const e = Object.entries(event);
    const d = Object.entries(only);
    const params = Object.fromEntries([
      ...e.map(([c, v]) => [`event_${c}`, v]),
      ...d.map(([c, v]) => [`delivery_${c}`, v]),
    ]) as Prefixed;
    await EVENT_WITH_DELIVERY.execute(tx, params, `${e.map(([c]) => c).join(',')}|${d.map(([c]) => c).join(',')}`);
    deliveriesWritten([only.endpoint_id]);
  } else {
    await INSERT_EVENT(tx, event);
    await insertDeliveries(tx, deliveries);
  }
}

/** Deliveries of an event written with them. */
async function insertDeliveries(tx: Tx, deliveries: readonly WebhookDeliveryTable[]): Promise<void> {
  for (const delivery of deliveries) await INSERT_DELIVERY(tx, delivery);
  if (deliveries.length > 0) deliveriesWritten(deliveries.map((d) => d.endpoint_id));
}
