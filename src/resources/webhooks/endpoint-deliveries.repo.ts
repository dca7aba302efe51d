import type { Queryable, Tx } from '../../db/schema.ts';
import type { WebhookDeliveryTable } from '../../db/tables/webhook.ts';
import { deliveriesWritten } from './webhook-delivery.repo.ts';

/** An endpoint's deliveries for the endpoint service: the recent ones, their counts, "Resend" (011-webhooks). */

export type DeliveryRow = WebhookDeliveryTable & { type: string };

/** An endpoint's most recent deliveries, newest first, with their event's type. */
export async function recentDeliveries(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  limit: number,
): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select('e.type')
    .where('d.workspace_id', '=', workspaceId)
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

/** How many deliveries an endpoint has, and how many of them still wait to be sent. */
export async function deliveryCounts(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
): Promise<{ total: number; pending: number }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('total'),
      eb.fn.sum<number | string | null>(eb.case().when('status', '=', 'pending').then(1).else(0).end()).as('pending'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), pending: Number(row.pending ?? 0) };
}

/** Makes a delivery due now again ("Resend"), whatever it came to. */
export async function requeueDelivery(
  tx: Tx,
  workspaceId: string,
  endpointId: string,
  eventId: string,
  now: number,
): Promise<boolean> {
  const result = await tx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, claimed_until: null, updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('endpoint_id', '=', endpointId)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  const found = Number(result.numUpdatedRows) > 0;
  if (found) deliveriesWritten([endpointId]);
  return found;
}
