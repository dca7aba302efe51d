import { sql } from 'kysely';
import { openStorage } from '../src/db/index.ts';
import { createEndpoint, deleteEndpoint } from '../src/resources/webhooks/webhook.service.ts';

/** The benches' webhook endpoint (`--webhook`, `create_webhook`): made beside the running API, then removed with its queue. */

/** On SQLite, wait for the API's own writes (its delivery worker's) rather than fail at once. */
const BESIDE_THE_API = { sqliteBusyTimeoutMs: 10_000 };

/** One enabled live endpoint of the workspace posting every event type to `url`: its id. */
export async function addEndpoint(databaseUrl: string, workspaceId: string, url: string): Promise<string> {
  const storage = await openStorage(databaseUrl, BESIDE_THE_API);
  try {
    const { endpoint } = await createEndpoint(
      storage,
      Date.now,
      { allowHttp: true, allowPrivate: true },
      { workspaceId, url, mode: 'live', contactsMasked: false, createdBy: 'bench' },
    );
    return endpoint.id;
  } finally {
    await storage.close();
  }
}

/**
 * Counts the endpoint's deliveries by status, then
 * deletes it with its queue, so the scenarios
 * after it run on a database like the one before it (no endpoint, no deliveries to claim).
 */
export async function retireEndpoint(databaseUrl: string, workspaceId: string, id: string) {
  const storage = await openStorage(databaseUrl, BESIDE_THE_API);
  try {
    const rows = await storage.db
      .selectFrom('webhook_deliveries')
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
      .where('workspace_id', '=', workspaceId)
      .where('endpoint_id', '=', id)
      .groupBy('status')
      .execute();
    const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
    await deleteEndpoint(storage, workspaceId, id);
    // The queue's removal is not the next scenario's to pay for: SQLite's WAL written back,
    // PostgreSQL's dead rows vacuumed, before it starts.
    if (storage.engine.name === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(storage.db);
    else await sql`VACUUM (ANALYZE) change_log, webhook_deliveries, webhook_events`.execute(storage.db);
    return {
      delivered: count('delivered'),
      pending: count('pending'),
      failed: count('failed'),
    };
  } finally {
    await storage.close();
  }
}
