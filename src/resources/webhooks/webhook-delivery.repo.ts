import { sql } from 'kysely';
import type { Engine } from '../../db/dialects/types.ts';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { WebhookDeliveryTable, WebhookEndpointTable, WebhookEventTable } from '../../db/tables/webhook.ts';

/**
 * The delivery queue the worker works (011-webhooks): the signal that deliveries were
 * written, the claim of due deliveries, their outcomes, and the queue's state for /metrics.
 */

type WrittenListener = (endpointIds: readonly string[]) => void;
const written = new Set<WrittenListener>();

/**
 * Calls `listener` with their endpoints whenever this process writes deliveries due now (an
 * event, a Resend), so its delivery worker looks for them at once instead of at its next poll.
 * The call comes inside the writing transaction: a listener looks a moment later, and a claim
 * sees the rows only once they are committed. Answers the function that stops the calls.
 */
export function onDeliveriesWritten(listener: WrittenListener): () => void {
  written.add(listener);
  return () => written.delete(listener);
}

/** Deliveries due now were written for these endpoints (the outbox, a Resend, and a write's last statement). */
export function deliveriesWritten(endpointIds: readonly string[]): void {
  for (const listener of written) listener(endpointIds);
}

/** What a worker needs to make one attempt. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryTable;
  event: WebhookEventTable;
  endpoint: WebhookEndpointTable;
}

/**
 * Deliveries a process could claim at `now`, whenever due: pending, held by no live claim,
 * and of an enabled endpoint (a disabled endpoint's deliveries wait, and go on once it is
 * enabled again). For the claim and for the worker's look ahead.
 */
function claimable(db: Queryable, now: number) {
  return db
    .selectFrom('webhook_deliveries')
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
    .where('endpoint_id', 'in', (eb) =>
      eb
        .selectFrom('webhook_endpoints')
        .select('webhook_endpoints.id')
        .where('webhook_endpoints.status', '=', 'enabled'),
    );
}

/** How much one claim may take. */
export interface ClaimLimits {
  /** The most deliveries taken in all. */
  total: number;
  /** The most deliveries of one endpoint the claiming process may hold at once. */
  perEndpoint: number;
  /** What the process holds already, by endpoint (claimed, not yet recorded). */
  held: ReadonlyMap<string, number>;
}

/**
 * Claims due deliveries until `leaseUntil`, in one transaction of three statements however many
 * it takes: up to `limits.total`, and no more of one endpoint than the process may still hold
 * (those it holds its fill of are not looked at). The rows are picked with `Engine.claimRows`
 * (on PostgreSQL `FOR UPDATE SKIP LOCKED`), so two processes claiming at once get different
 * rows, and a claim another process holds is skipped until its lease ends. A due row looked at
 * but not taken (its endpoint's share was full) stays unclaimed. `more`: this claim took as
 * many as it asked for, so more may be due; `skipped`: it passed over some due deliveries
 * (of endpoints whose share is full), which a later claim takes.
 */
export async function claimDue(
  tx: Tx,
  engine: Pick<Engine, 'claimRows'>,
  now: number,
  leaseUntil: number,
  limits: ClaimLimits,
): Promise<{ claimed: ClaimedDelivery[]; more: boolean; skipped: boolean }> {
  const full = [...limits.held].filter(([, n]) => n >= limits.perEndpoint).map(([id]) => id);
  let due = claimable(tx, now)
    .select(['id', 'endpoint_id'])
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limits.total);
  if (full.length > 0) due = due.where('endpoint_id', 'not in', full);
  const found = await engine.claimRows(due).execute();
  const taking = new Map<string, number>();
  const ids: string[] = [];
  for (const row of found) {
    const n = taking.get(row.endpoint_id) ?? limits.held.get(row.endpoint_id) ?? 0;
    if (n >= limits.perEndpoint) continue;
    taking.set(row.endpoint_id, n + 1);
    ids.push(row.id);
  }
  const more = found.length === limits.total && ids.length === found.length;
  const skipped = full.length > 0 || ids.length < found.length;
  if (ids.length === 0) return { claimed: [], more, skipped };
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
    .orderBy('d.next_attempt_at')
    .execute();
  const claimed = rows.map((r) => ({
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
  return { claimed, more, skipped };
}

/** An attempt's outcome, written only while this worker's claim still holds. */
export interface AttemptOutcome {
  status: 'pending' | 'delivered' | 'failed';
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
}

/**
 * Records one outcome for many attempts, each only while the claim it was made under still
 * holds; answers the ids it recorded (a claim that ran out and was taken again is not).
 */
export async function recordOutcomes(
  tx: Tx,
  ids: readonly string[],
  leaseUntil: number,
  outcome: AttemptOutcome,
  now: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await tx
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
    .where('id', 'in', ids)
    .where('claimed_until', '=', leaseUntil)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** The soonest a delivery this process could claim is due (null: none is waiting); a read, no lock. */
export async function nextDue(db: Queryable, now: number): Promise<number | null> {
  const row = await claimable(db, now).select('next_attempt_at').orderBy('next_attempt_at').limit(1).executeTakeFirst();
  return row?.next_attempt_at == null ? null : Number(row.next_attempt_at);
}

/** Gives claims back unattempted (a shutdown, a lease too near its end to start), so any process takes them at once. */
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
    // A delivery a worker made as its endpoint was deleted waits for no one.
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min<number | null>('e.created_at').as('oldest')])
    .where('d.status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { pending: Number(row.n), oldest: row.oldest === null ? null : Number(row.oldest) };
}
