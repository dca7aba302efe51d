import { sql, type Insertable } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import type { Queryable, Tx, WebhookDeliveryTable, WebhookEndpointTable, WebhookEventTable } from '../../db/schema.ts';

/** The event outbox and its deliveries (011-webhooks). */

export async function insertEvent(tx: Tx, row: WebhookEventTable): Promise<void> {
  await tx.insertInto('webhook_events').values(row).execute();
}

export async function insertDeliveries(tx: Tx, rows: Insertable<WebhookDeliveryTable>[]): Promise<void> {
  if (rows.length > 0) await tx.insertInto('webhook_deliveries').values(rows).execute();
}

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
  return Number(result.numUpdatedRows) > 0;
}

/** What a worker needs to make one attempt. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryTable;
  event: WebhookEventTable;
  endpoint: WebhookEndpointTable;
}

/**
 * Claims up to `limit` due deliveries until `leaseUntil`, skipping the endpoints listed (at
 * their cap in this process). The rows are picked with `Engine.claimRows` (on PostgreSQL
 * `FOR UPDATE SKIP LOCKED`), so two processes claiming at once get different rows, and a
 * claim another process holds is skipped until its lease ends.
 */
export async function claimDue(
  tx: Tx,
  engine: Pick<Engine, 'claimRows'>,
  now: number,
  leaseUntil: number,
  limit: number,
  busyEndpoints: readonly string[],
): Promise<ClaimedDelivery[]> {
  let due = tx
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    // A disabled endpoint's deliveries wait, and go on once it is enabled again.
    .where('endpoint_id', 'in', (eb) =>
      eb
        .selectFrom('webhook_endpoints')
        .select('webhook_endpoints.id')
        .where('webhook_endpoints.status', '=', 'enabled'),
    )
    .orderBy('next_attempt_at')
    .limit(limit);
  if (busyEndpoints.length > 0) due = due.where('endpoint_id', 'not in', busyEndpoints);
  const ids = (await engine.claimRows(due).execute()).map((r) => r.id);
  if (ids.length === 0) return [];
  await tx.updateTable('webhook_deliveries').set({ claimed_until: leaseUntil }).where('id', 'in', ids).execute();
  const rows = await tx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .selectAll('d')
    .select([
      'e.type as e_type',
      'e.payload as e_payload',
      'e.livemode as e_livemode',
      'e.created_at as e_created_at',
      'w.url as w_url',
      'w.mode as w_mode',
      'w.events as w_events',
      'w.contacts_masked as w_contacts_masked',
      'w.status as w_status',
      'w.secret as w_secret',
      'w.previous_secret as w_previous_secret',
      'w.previous_secret_expires_at as w_previous_secret_expires_at',
      'w.failing_since as w_failing_since',
      'w.disabled_reason as w_disabled_reason',
      'w.created_at as w_created_at',
      'w.created_by as w_created_by',
      'w.updated_at as w_updated_at',
    ])
    .where('d.id', 'in', ids)
    .execute();
  return rows.map((r) => ({
    delivery: {
      id: r.id,
      workspace_id: r.workspace_id,
      endpoint_id: r.endpoint_id,
      event_id: r.event_id,
      status: r.status,
      attempts: r.attempts,
      last_status: r.last_status,
      last_error: r.last_error,
      next_attempt_at: r.next_attempt_at,
      claimed_until: r.claimed_until,
      created_at: r.created_at,
      updated_at: r.updated_at,
    },
    event: {
      id: r.event_id,
      workspace_id: r.workspace_id,
      livemode: r.e_livemode,
      type: r.e_type,
      payload: r.e_payload,
      created_at: r.e_created_at,
    },
    endpoint: {
      id: r.endpoint_id,
      workspace_id: r.workspace_id,
      mode: r.w_mode,
      url: r.w_url,
      events: r.w_events,
      contacts_masked: r.w_contacts_masked,
      status: r.w_status,
      secret: r.w_secret,
      previous_secret: r.w_previous_secret,
      previous_secret_expires_at: r.w_previous_secret_expires_at,
      failing_since: r.w_failing_since,
      disabled_reason: r.w_disabled_reason,
      created_at: r.w_created_at,
      created_by: r.w_created_by,
      updated_at: r.w_updated_at,
    },
  }));
}

/** An attempt's outcome, written only while this worker's claim still holds. */
export interface AttemptOutcome {
  status: 'pending' | 'delivered' | 'failed';
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
}

export async function recordAttempt(
  tx: Tx,
  claimed: WebhookDeliveryTable,
  leaseUntil: number,
  outcome: AttemptOutcome,
  now: number,
): Promise<boolean> {
  const result = await tx
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      attempts: sql`attempts + 1`,
      last_status: outcome.lastStatus,
      last_error: outcome.lastError,
      next_attempt_at: outcome.nextAttemptAt,
      claimed_until: null,
      updated_at: now,
    })
    .where('id', '=', claimed.id)
    .where('claimed_until', '=', leaseUntil)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives claims back unattempted (a shutdown), so another process takes them at once. */
export async function releaseClaims(tx: Tx, ids: readonly string[], leaseUntil: number): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .updateTable('webhook_deliveries')
    .set({ claimed_until: null })
    .where('id', 'in', ids)
    .where('claimed_until', '=', leaseUntil)
    .execute();
}

/** For /metrics: deliveries waiting, and when the oldest of their events was made. */
export async function queueState(db: Queryable): Promise<{ pending: number; oldest: number | null }> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min<number | null>('e.created_at').as('oldest')])
    .where('d.status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { pending: Number(row.n), oldest: row.oldest === null ? null : Number(row.oldest) };
}
