import type { Engine } from '../../db/dialects/types.ts';
import { insertMany } from '../../db/insert-many.ts';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { WebhookDeliveryTable, WebhookEventTable } from '../../db/tables/webhook.ts';
import { deliveryRow } from './webhook-event.service.ts';
import { takesAny } from './webhook.model.ts';

/**
 * The events riding in change-log rows (020-change-log-events, customer-event.service.ts),
 * made into the outbox's events and deliveries by the delivery worker, many in one
 * transaction, and cleared from their rows in it: each is made once, by one process.
 */

const written = new Set<() => void>();

/**
 * Calls `listener` whenever this process puts events in change-log rows, inside the writing
 * transaction (as onDeliveriesWritten): its delivery worker makes their deliveries a moment
 * later instead of at its next poll. Answers the function that stops the calls.
 */
export function onEventsWritten(listener: () => void): () => void {
  written.add(listener);
  return () => written.delete(listener);
}

/** Events were put in change-log rows (customer-event.service.ts). */
export function eventsWritten(): void {
  for (const listener of written) listener();
}

/** Change-log rows whose event waits (020's partial index holds them, by `at` and `id`). */
function waiting(db: Queryable) {
  return db.selectFrom('change_log').where('event', 'is not', null);
}

/**
 * Processes' clocks differ: an endpoint made this soon after a change, by the clocks that
 * stamped them, may have been seen by the write, and still takes its event.
 */
const CLOCK_MARGIN_MS = 5_000;

/** What one call made of the waiting events. */
export interface FannedOut {
  /** Events taken from their rows: made into deliveries, or dropped as no endpoint takes them. */
  taken: number;
  /** Change-log rows whose event could not be read (not JSON), cleared so they hold nothing up. */
  unreadable: string[];
}

/**
 * Makes the deliveries of up to `limit` waiting events, oldest first, to the endpoints of
 * their workspace and mode that take the event's type, were made by the time of the change
 * (one made afterwards receives what happens afterwards) and are enabled, or were disabled
 * since the change (their deliveries wait for them to be enabled again, as a delivery
 * written before the disable does). The rows are taken with `Engine.claimRows` (on
 * PostgreSQL `FOR UPDATE SKIP LOCKED`), so two processes never make the same event's
 * deliveries. An event no endpoint takes any longer is dropped.
 */
export async function fanOutEvents(
  tx: Tx,
  engine: Pick<Engine, 'claimRows' | 'maxInsertRows'>,
  limit: number,
): Promise<FannedOut> {
  const none: FannedOut = { taken: 0, unreadable: [] };
  if (limit <= 0) return none;
  const rows = await engine
    .claimRows(
      waiting(tx).select(['id', 'workspace_id', 'livemode', 'at', 'event']).orderBy('at').orderBy('id').limit(limit),
    )
    .execute();
  if (rows.length === 0) return none;
  const endpoints = await tx
    .selectFrom('webhook_endpoints')
    .select(['id', 'workspace_id', 'mode', 'events', 'status', 'created_at', 'updated_at'])
    .where('workspace_id', 'in', [...new Set(rows.map((r) => r.workspace_id))])
    .execute();
  const events: WebhookEventTable[] = [];
  const deliveries: WebhookDeliveryTable[] = [];
  const unreadable: string[] = [];
  for (const row of rows) {
    const payload = row.event!;
    const head = readHead(payload);
    if (!head) {
      unreadable.push(row.id);
      continue;
    }
    const mode = row.livemode === 1 ? 'live' : 'test';
    const takers = endpoints.filter(
      (e) =>
        e.workspace_id === row.workspace_id &&
        e.mode === mode &&
        e.created_at <= row.at + CLOCK_MARGIN_MS &&
        (e.status === 'enabled' || e.updated_at > row.at) &&
        takesAny(e, [head.type]),
    );
    if (takers.length === 0) continue;
    const event: WebhookEventTable = {
      id: head.id,
      workspace_id: row.workspace_id,
      livemode: row.livemode,
      type: head.type,
      payload,
      created_at: Number(row.at),
    };
    events.push(event);
    for (const endpoint of takers) deliveries.push(deliveryRow(event, endpoint.id));
  }
  // An event already in the outbox (a restored copy, say) is not written twice.
  await insertMany(tx, engine, 'webhook_events', events, { doNothingOnConflict: true });
  await insertMany(tx, engine, 'webhook_deliveries', deliveries);
  await tx
    .updateTable('change_log')
    .set({ event: null })
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .execute();
  return { taken: rows.length, unreadable };
}

/** The id and type of an event's payload; null when it is not an event's JSON. */
function readHead(payload: string): { id: string; type: string } | null {
  try {
    const { id, type } = JSON.parse(payload) as { id?: unknown; type?: unknown };
    return typeof id === 'string' && typeof type === 'string' ? { id, type } : null;
  } catch {
    return null;
  }
}

/** Whether any change-log row's event waits for its deliveries; a read, no lock. */
export async function eventsWaiting(db: Queryable): Promise<boolean> {
  return (await waiting(db).select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** For /metrics: events waiting in change-log rows, and when the oldest was made. */
export async function waitingState(db: Queryable): Promise<{ waiting: number; oldest: number | null }> {
  const row = await waiting(db)
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min<number | null>('at').as('oldest')])
    .executeTakeFirstOrThrow();
  return { waiting: Number(row.n), oldest: row.oldest === null ? null : Number(row.oldest) };
}
