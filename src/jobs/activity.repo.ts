import { sql } from 'kysely';
import type { Engine } from '../db/dialects/types.ts';
import type { Db, Tx } from '../db/schema.ts';
import type { KeyActivityCheckTable, KeyActivityHourTable, KeyCustomerReadTable } from '../db/tables/activity.ts';
import type { Writer } from '../db/write.ts';
import { DAY_MS } from '../lib/time.ts';
import { PreparedInsertMany } from '../db/prepared.ts';
import { deleteInBatches } from './batches.ts';

/** Storage of the activity the tracker counted and the check reads (004-activity). */
export const HOUR_MS = 3_600_000;

export function hourStart(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

function chunks<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** Adds request counts to their key-hour rows (an upsert that sums, on both engines). */
export async function addHourlyRequests(tx: Tx, engine: Engine, rows: KeyActivityHourTable[]): Promise<void> {
  for (const batch of chunks(rows, engine.maxInsertRows(4))) {
    await tx
      .insertInto('key_activity_hours')
      .values(batch)
      .onConflict((oc) =>
        oc.columns(['key_id', 'hour_start']).doUpdateSet((eb) => ({
          requests: eb('key_activity_hours.requests', '+', eb.ref('excluded.requests')),
        })),
      )
      .execute();
  }
}

// A walk over every customer sends them all: the flush then writes as many rows.
const SENT = new PreparedInsertMany<KeyCustomerReadTable>(
  ['key_id', 'customer_id', 'workspace_id', 'last_seen_at'],
  (db, rows) =>
    db
      .insertInto('key_customer_reads')
      .values(rows as unknown as KeyCustomerReadTable[])
      .onConflict((oc) =>
        oc
          .columns(['key_id', 'customer_id'])
          .doUpdateSet((eb) => ({ last_seen_at: eb.ref('excluded.last_seen_at') }))
          .where((eb) => eb('excluded.last_seen_at', '>', eb.ref('key_customer_reads.last_seen_at'))),
      ),
);

function byPrimaryKey(a: KeyCustomerReadTable, b: KeyCustomerReadTable): number {
  if (a.key_id !== b.key_id) return a.key_id < b.key_id ? -1 : 1;
  return a.customer_id < b.customer_id ? -1 : a.customer_id > b.customer_id ? 1 : 0;
}

/**
 * Moves each (key, customer) pair's last_seen_at forward, never back. The rows go in
 * primary-key order: customer ids are random, so in the order they were sent each row lands
 * on a random page of the key's index; sorted, the batch walks the index once.
 */
export async function markCustomersSent(tx: Tx, rows: KeyCustomerReadTable[]): Promise<void> {
  await SENT.run(tx, rows.slice().sort(byPrimaryKey));
}

export interface CandidateKey {
  id: string;
  workspace_id: string;
  name: string;
  created_at: number;
  resumed_at: number | null;
}

/** Live, active, unexpired keys: the only ones the check looks at. */
export async function liveActiveKeys(db: Db, now: number): Promise<CandidateKey[]> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'workspace_id', 'name', 'created_at', 'resumed_at'])
    .where('mode', '=', 'live')
    .where('status', '=', 'active')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute() as Promise<CandidateKey[]>;
}

/** Live, not deleted customers per workspace. */
export async function liveCustomerCounts(db: Db, workspaceIds: string[]): Promise<Map<string, number>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('customers')
    .select(['workspace_id', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('workspace_id', 'in', workspaceIds)
    .where('livemode', '=', 1)
    .where('deleted_at', 'is', null)
    .groupBy('workspace_id')
    .execute();
  return new Map(rows.map((r) => [r.workspace_id, Number(r.n)]));
}

/**
 * Distinct customers sent to each key since `since`, leaving out the key's first 24 hours
 * and anything before its last resume. last_seen_at is the latest send, so a customer
 * has a send in the window exactly when last_seen_at falls in it.
 */
export async function customersSentSince(db: Db, keyIds: string[], since: number): Promise<Map<string, number>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('key_customer_reads as r')
    .innerJoin('api_keys as k', 'k.id', 'r.key_id')
    .select(['r.key_id', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('r.key_id', 'in', keyIds)
    .where('r.last_seen_at', '>=', since)
    .where('r.last_seen_at', '>=', sql<number>`k.created_at + ${DAY_MS}`)
    .where((eb) => eb.or([eb('k.resumed_at', 'is', null), eb('r.last_seen_at', '>=', eb.ref('k.resumed_at'))]))
    .groupBy('r.key_id')
    .execute();
  return new Map(rows.map((r) => [r.key_id, Number(r.n)]));
}

/** Sum of requests per key over hours in [from, to). */
export async function requestsBetween(
  db: Db,
  keyIds: string[],
  from: number,
  to: number,
): Promise<Map<string, number>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('key_activity_hours')
    .select(['key_id', (eb) => eb.fn.sum<number | string>('requests').as('n')])
    .where('key_id', 'in', keyIds)
    .where('hour_start', '>=', from)
    .where('hour_start', '<', to)
    .groupBy('key_id')
    .execute();
  return new Map(rows.map((r) => [r.key_id, Number(r.n)]));
}

/** Keeps what a check saw of each key; a second run for the same hour (the CLI's) replaces it. */
export async function recordChecks(tx: Tx, engine: Engine, rows: KeyActivityCheckTable[]): Promise<void> {
  for (const batch of chunks(rows, engine.maxInsertRows(8))) {
    await tx
      .insertInto('key_activity_checks')
      .values(batch)
      .onConflict((oc) =>
        oc.columns(['key_id', 'hour_start']).doUpdateSet((eb) => ({
          requests: eb.ref('excluded.requests'),
          request_threshold: eb.ref('excluded.request_threshold'),
          customers_sent: eb.ref('excluded.customers_sent'),
          customer_threshold: eb.ref('excluded.customer_threshold'),
          verdict: eb.ref('excluded.verdict'),
        })),
      )
      .execute();
  }
}

/**
 * One batch of customer sends older than `before`, picked by primary key through the
 * last_seen_at index (005): a key that synced a whole workspace goes `limit` rows at a time.
 */
export async function deleteCustomerReadsBatch(tx: Tx, before: number, limit: number): Promise<number> {
  const result = await tx
    .deleteFrom('key_customer_reads')
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('key_id', 'customer_id'),
        'in',
        selectFrom('key_customer_reads')
          .select(['key_id', 'customer_id'])
          .where('last_seen_at', '<', before)
          .limit(limit)
          .$asTuple('key_id', 'customer_id'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Drops activity older than any window the check reads, a batch a transaction. */
export async function purgeActivity(store: Writer, now: number, options?: { batch?: number }): Promise<void> {
  // One row per key and hour: an hourly run finds about one row per active key.
  await store.write((tx) =>
    tx
      .deleteFrom('key_activity_hours')
      .where('hour_start', '<', hourStart(now) - 8 * DAY_MS)
      .execute(),
  );
  await store.write((tx) =>
    tx
      .deleteFrom('key_activity_checks')
      .where('hour_start', '<', hourStart(now) - 8 * DAY_MS)
      .execute(),
  );
  const before = now - 2 * DAY_MS;
  await deleteInBatches((limit) => store.write((tx) => deleteCustomerReadsBatch(tx, before, limit)), options);
}

const LAST_RUN = 'activity_check.last_hour';

/**
 * Claims the hour for this process: true for exactly one caller per hour, across processes
 * and engines (a compare-and-set on the meta row, under the job lock as well).
 */
export async function claimHour(tx: Tx, hour: number): Promise<boolean> {
  await tx
    .insertInto('meta')
    .values({ name: LAST_RUN, value: '0' })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const result = await tx
    .updateTable('meta')
    .set({ value: String(hour) })
    .where('name', '=', LAST_RUN)
    .where(sql<number>`cast(value as bigint)`, '<', hour)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
