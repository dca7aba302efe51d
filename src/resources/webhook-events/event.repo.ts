import { type RawBuilder, sql } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import { insertMany } from '../../db/insert-many.ts';
import { preparedInsert, PreparedQuery, rawQuery } from '../../db/prepared.ts';
import type { Tx } from '../../db/schema.ts';
import type { WebhookEventTable } from '../../db/tables/webhook.ts';
import type { Scope } from '../actor.model.ts';
import { eventRow, type NewEvent } from './event.model.ts';

// The outbox's writes (011-webhooks): events, and one delivery an event and enabled endpoint that takes its type.

/** The largest payload sent; a larger event's deliveries fail when they are made. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;

const tooLarge = sql`octet_length(e.payload) > ${sql.lit(MAX_PAYLOAD_BYTES)}`;

/**
 * An INSERT of the deliveries of the events in `events` (the table, or a WITH of rows just
 * inserted): a delivery's id is its event's and its endpoint's, which makes it unique.
 */
export function deliveriesOf(events: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`insert into webhook_deliveries (id, workspace_id, endpoint_id, event_id, status, attempts, last_status,
    last_error, next_attempt_at, claimed_until, created_at, updated_at)
  select e.id || '.' || w.id, e.workspace_id, w.id, e.id, case when ${tooLarge} then 'failed' else 'pending' end, 0,
    null, case when ${tooLarge} then 'payload of ' || octet_length(e.payload) || ' bytes is over 256 KiB' end,
    case when ${tooLarge} then null else e.created_at end, null, e.created_at, e.created_at
  from ${events} e join webhook_endpoints w on w.workspace_id = e.workspace_id
    and w.mode = case when e.livemode = 1 then 'live' else 'test' end and w.status = 'enabled'
    and (w.events like '%"*"%' or w.events like '%"' || replace(e.type, '_', '\\_') || '"%' escape '\\')`;
}

// Every write inserts one event and looks for its deliveries: compiled once (db/prepared.ts).
const INSERT_EVENT = preparedInsert('webhook_events');
const INSERT_DELIVERY = preparedInsert('webhook_deliveries');
const DELIVERIES_OF_ONE = new PreparedQuery<{ id: string }, never>((db, param) =>
  rawQuery(db, sql`${deliveriesOf(sql`(select * from webhook_events where id = ${param('id')})`)}`),
);

/** Writes events with their deliveries, in the caller's transaction; answers how many deliveries. */
export async function insertEvents(tx: Tx, engine: Pick<Engine, 'maxInsertRows'>, rows: readonly WebhookEventTable[]) {
  if (rows.length === 0) return 0;
  if (rows.length === 1) {
    await INSERT_EVENT(tx, rows[0]!);
    return Number((await DELIVERIES_OF_ONE.run(tx, { id: rows[0]!.id })).numAffectedRows ?? 0n);
  }
  await insertMany(tx, engine, 'webhook_events', [...rows]);
  let deliveries = 0;
  const perStatement = engine.maxInsertRows(1);
  for (let i = 0; i < rows.length; i += perStatement) {
    const ids = rows.slice(i, i + perStatement).map((e) => e.id);
    const chunk = sql`(select * from webhook_events where id in (${sql.join(ids)}))`;
    deliveries += Number((await deliveriesOf(chunk).execute(tx)).numAffectedRows ?? 0n);
  }
  return deliveries;
}

/** An event to one endpoint only, whatever it subscribes to ("Send test event"), with its delivery. */
export async function insertEventFor(tx: Tx, event: WebhookEventTable, endpointId: string): Promise<void> {
  await INSERT_EVENT(tx, event);
  const at = event.created_at;
  await INSERT_DELIVERY(tx, {
    id: `${event.id}.${endpointId}`,
    workspace_id: event.workspace_id,
    endpoint_id: endpointId,
    event_id: event.id,
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    created_at: at,
    updated_at: at,
  });
}

/** Events of one scope, made and written with their deliveries; answers how many deliveries. */
export async function recordEvents(
  tx: Tx,
  engine: Pick<Engine, 'maxInsertRows'>,
  scope: Scope,
  events: readonly NewEvent[],
): Promise<number> {
  const rows = events.map((event) => eventRow(scope, event));
  return insertEvents(tx, engine, rows);
}
