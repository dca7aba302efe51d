import { sql } from 'kysely';
import { PreparedQuery } from '../../db/prepared.ts';
import type { Engine } from '../../db/dialects/types.ts';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { WebhookDeliveryTable, WebhookEndpointTable, WebhookEventTable } from '../../db/tables/webhook.ts';
import type { EndpointKey } from './webhook-endpoint.repo.ts';

// The outbox (011-webhooks): events, one delivery per event and endpoint, claimed under a lease by the worker.

/** A delivery the worker claimed, with what one attempt needs: its event's payload, its endpoint's URL and secrets. */
export type ClaimedDelivery = WebhookDeliveryTable &
  Pick<WebhookEventTable, 'payload' | 'trace_parent'> &
  Pick<WebhookEndpointTable, 'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at' | 'contacts_masked'>;

/** How many a claim may take, the most one endpoint and one workspace may have, and what the process holds already. */
interface ClaimRoom {
  total: number;
  perEndpoint: number;
  perWorkspace: number;
  held: Iterable<Pick<WebhookDeliveryTable, 'endpoint_id' | 'workspace_id'>>;
  /**
   * Look past the deliveries of full shares. Without it a claim reads only the oldest `4 × total` due rows and
   * passes over those of full shares, so it never reads a saturated endpoint's whole backlog; with it (the poll's,
   * once a second) the full shares are left out in the query, which may read that backlog to find what is behind.
   */
  lookPast: boolean;
}

/**
 * Due deliveries (pending, of an enabled endpoint, held by no live lease), oldest first, leased to `leaseUntil`: no
 * more of one endpoint or one workspace than its share, so one workspace's dead receivers never hold every slot.
 * Engine.claimRows picks them, so two processes never take the same row. `exhausted`: nothing due was left behind.
 */
export async function claimDue(
  tx: Tx,
  engine: Pick<Engine, 'claimRows'>,
  now: number,
  leaseUntil: number,
  room: ClaimRoom,
): Promise<{ claimed: ClaimedDelivery[]; exhausted: boolean }> {
  const byEndpoint = new Map<string, number>();
  const byWorkspace = new Map<string, number>();
  const hold = ({ endpoint_id, workspace_id }: Pick<WebhookDeliveryTable, 'endpoint_id' | 'workspace_id'>) => {
    byEndpoint.set(endpoint_id, (byEndpoint.get(endpoint_id) ?? 0) + 1);
    byWorkspace.set(workspace_id, (byWorkspace.get(workspace_id) ?? 0) + 1);
  };
  for (const delivery of room.held) hold(delivery);
  const full = (held: Map<string, number>, cap: number) => [...held].filter(([, n]) => n >= cap).map(([id]) => id);
  const fullEndpoints = full(byEndpoint, room.perEndpoint);
  const fullWorkspaces = full(byWorkspace, room.perWorkspace);
  let due = tx
    .selectFrom('webhook_deliveries')
    .select(['id', 'endpoint_id', 'workspace_id'])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .where('endpoint_id', 'in', (eb) =>
      eb
        .selectFrom('webhook_endpoints')
        .select('webhook_endpoints.id')
        .where('webhook_endpoints.status', '=', 'enabled'),
    )
    .orderBy('next_attempt_at')
    .limit(room.total * 4);
  // Only a look past leaves the full shares out in the query; otherwise the loop below passes over their rows.
  const [outEndpoints, outWorkspaces] = room.lookPast ? [fullEndpoints, fullWorkspaces] : [[], []];
  if (outEndpoints.length > 0) due = due.where('endpoint_id', 'not in', outEndpoints);
  if (outWorkspaces.length > 0) due = due.where('workspace_id', 'not in', outWorkspaces);
  const leftOut = outEndpoints.length > 0 || outWorkspaces.length > 0;
  const ids: string[] = [];
  const found = await engine.claimRows(due).execute();
  for (const row of found) {
    if ((byEndpoint.get(row.endpoint_id) ?? 0) >= room.perEndpoint) continue;
    if ((byWorkspace.get(row.workspace_id) ?? 0) >= room.perWorkspace) continue;
    hold(row);
    ids.push(row.id);
    if (ids.length === room.total) break;
  }
  // Every due delivery was taken, none passed over or left out for its share: nothing more is due now.
  const exhausted = found.length < room.total * 4 && ids.length === found.length && !leftOut;
  if (ids.length === 0) return { claimed: [], exhausted };
  await tx.updateTable('webhook_deliveries').set({ claimed_until: leaseUntil }).where('id', 'in', ids).execute();
  const claimed = await tx
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .selectAll('d')
    .select(['e.payload', 'e.trace_parent'])
    .select(['w.url', 'w.contacts_masked', 'w.secret', 'w.previous_secret', 'w.previous_secret_expires_at'])
    .where('d.id', 'in', ids)
    .orderBy('d.next_attempt_at')
    .execute();
  return { claimed, exhausted };
}

/** What an attempt sets on its delivery (`updated_at`: when it ended). */
export type AttemptOutcome = Pick<
  WebhookDeliveryTable,
  'status' | 'last_status' | 'last_error' | 'next_attempt_at' | 'updated_at'
>;

const RECORD_OUTCOME = new PreparedQuery<AttemptOutcome & { id: string; leaseUntil: number }, never>((db, param) =>
  db
    .updateTable('webhook_deliveries')
    .set({
      status: param('status'),
      attempts: sql`attempts + 1`,
      last_status: param('last_status'),
      last_error: param('last_error'),
      next_attempt_at: param('next_attempt_at'),
      claimed_until: sql.lit(null),
      updated_at: param('updated_at'),
    })
    .where('id', '=', param('id'))
    .where('claimed_until', '=', param('leaseUntil')),
);

/** Records an attempt, only while the lease it was made under holds; answers whether it did. */
export async function recordOutcome(tx: Tx, id: string, leaseUntil: number, outcome: AttemptOutcome): Promise<boolean> {
  const result = await RECORD_OUTCOME.run(tx, { ...outcome, id, leaseUntil });
  return Number(result.numAffectedRows ?? 0n) > 0;
}

/** An endpoint's most recent deliveries, newest first, with their event's type. */
export async function recentDeliveries(db: Queryable, endpoint: EndpointKey, limit: number) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select('e.type')
    .where('d.workspace_id', '=', endpoint.workspace_id)
    .where('d.endpoint_id', '=', endpoint.id)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
}

/** How many deliveries an endpoint has, and how many of them still wait to be sent. */
export async function deliveryCounts(db: Queryable, endpoint: EndpointKey) {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => [
      eb.fn.countAll<number | string>().as('deliveries'),
      eb.fn.sum<number | string | null>(eb.case().when('status', '=', 'pending').then(1).else(0).end()).as('pending'),
    ])
    .where('workspace_id', '=', endpoint.workspace_id)
    .where('endpoint_id', '=', endpoint.id)
    .executeTakeFirstOrThrow();
  return { deliveries: Number(row.deliveries), pending: Number(row.pending ?? 0) };
}

/** An update making the endpoint's deliveries due now, pending and unclaimed; the caller says which. */
const dueAgainNow = (tx: Tx, endpoint: EndpointKey, now: number) =>
  tx
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, claimed_until: null, updated_at: now })
    .where('workspace_id', '=', endpoint.workspace_id)
    .where('endpoint_id', '=', endpoint.id);

/** Makes a delivery due now again ("Resend"), whatever it came to; answers whether there was one. */
export async function requeueDelivery(tx: Tx, endpoint: EndpointKey, eventId: string, now: number): Promise<boolean> {
  const result = await dueAgainNow(tx, endpoint, now).where('event_id', '=', eventId).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Makes the endpoint's failed deliveries made at or after `since` due again now; answers how many. Not one never
 * attempted (an event over the size limit): no attempt could send it, and its failure would count against the receiver.
 */
export async function requeueFailedSince(tx: Tx, endpoint: EndpointKey, since: number, now: number): Promise<number> {
  const result = await dueAgainNow(tx, endpoint, now)
    .where('status', '=', 'failed')
    .where('created_at', '>=', since)
    .where('attempts', '>', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
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
