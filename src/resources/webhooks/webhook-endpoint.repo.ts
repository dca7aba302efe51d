import { type Insertable, sql, type Updateable } from 'kysely';
import { PreparedQuery } from '../../db/prepared.ts';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { WebhookEndpointTable } from '../../db/tables/webhook.ts';

// Webhook endpoints (011-webhooks): every query names its workspace (CONVENTIONS 4).

/** An endpoint as the queries on it name it: its workspace and its id. */
export type EndpointKey = Pick<WebhookEndpointTable, 'workspace_id' | 'id'>;

const updateOne = (tx: Tx, { workspace_id, id }: EndpointKey) =>
  tx.updateTable('webhook_endpoints').where('workspace_id', '=', workspace_id).where('id', '=', id);

export async function insertEndpoint(tx: Tx, row: Insertable<WebhookEndpointTable>): Promise<void> {
  await tx.insertInto('webhook_endpoints').values(row).execute();
}

export async function listEndpoints(db: Queryable, workspaceId: string): Promise<WebhookEndpointTable[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** One endpoint by id; `workspaceId` null only for the operator's CLI, which names endpoints by id alone. */
export async function findEndpoint(db: Queryable, workspaceId: string | null, id: string) {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
  if (workspaceId !== null) query = query.where('workspace_id', '=', workspaceId);
  return query.executeTakeFirst();
}

export async function updateEndpoint(tx: Tx, endpoint: EndpointKey, set: Updateable<WebhookEndpointTable>) {
  await updateOne(tx, endpoint).set(set).execute();
}

/** Removes the endpoint with its deliveries (events stay for other endpoints; orphans go with retention). */
export async function deleteEndpoint(tx: Tx, { workspace_id, id }: EndpointKey): Promise<void> {
  await tx.deleteFrom('webhook_endpoints').where('workspace_id', '=', workspace_id).where('id', '=', id).execute();
  await tx
    .deleteFrom('webhook_deliveries')
    .where('workspace_id', '=', workspace_id)
    .where('endpoint_id', '=', id)
    .execute();
}

/** After an attempt: a success ends a run of failures (and re-arms its warning); a failure starts one if none runs. */
// Every attempt asks one of the two: compiled once (db/prepared.ts). Shape: `ok` or `failed`.
const NOTE_ATTEMPT = new PreparedQuery<{ workspaceId: string; id: string; now: number }, never>((db, param, shape) => {
  const query = db
    .updateTable('webhook_endpoints')
    .where('workspace_id', '=', param('workspaceId'))
    .where('id', '=', param('id'));
  return shape === 'ok'
    ? query
        .set({ failing_since: sql.lit(null), failing_warned_at: sql.lit(null) })
        .where('failing_since', 'is not', sql.lit(null))
    : query.set({ failing_since: param('now') }).where('failing_since', 'is', sql.lit(null));
});

export async function noteAttempt(tx: Tx, endpoint: EndpointKey, ok: boolean, now: number): Promise<void> {
  await NOTE_ATTEMPT.run(tx, { workspaceId: endpoint.workspace_id, id: endpoint.id, now }, ok ? 'ok' : 'failed');
}

/** Disables the endpoint when every attempt since `before` or earlier failed; answers whether it did. */
export async function disableIfFailingSince(
  tx: Tx,
  endpoint: EndpointKey,
  before: number,
  reason: string,
  now: number,
) {
  const result = await updateOne(tx, endpoint)
    .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('status', '=', 'enabled')
    .where('failing_since', '<=', before)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks an enabled endpoint's run of failures since `before` or earlier warned, once a run; answers when it began. */
export async function warnIfFailingSince(tx: Tx, endpoint: EndpointKey, before: number, now: number) {
  const row = await updateOne(tx, endpoint)
    .set({ failing_warned_at: now })
    .where('status', '=', 'enabled')
    .where('failing_since', '<=', before)
    .where('failing_warned_at', 'is', null)
    .returning('failing_since')
    .executeTakeFirst();
  return row?.failing_since == null ? null : Number(row.failing_since);
}
