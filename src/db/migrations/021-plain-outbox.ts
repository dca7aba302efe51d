import { type Kysely, sql } from 'kysely';
import { newId } from '../../lib/ids.ts';

/**
 * Events go straight to the outbox with their deliveries (src/resources/webhook-events/), no longer
 * through change-log rows: the events 020 left waiting there are moved to the outbox, with a
 * delivery to each enabled endpoint of their scope that takes their type, and the column goes.
 * A contract step: stop servers older than this migration before it runs (docs/operations.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const waiting = await db
    .selectFrom('change_log')
    .select(['workspace_id', 'livemode', 'at', 'event'])
    .where('event', 'is not', null)
    .execute();
  const endpoints = waiting.length
    ? await db
        .selectFrom('webhook_endpoints')
        .select(['id', 'workspace_id', 'mode', 'events'])
        .where('status', '=', 'enabled')
        .execute()
    : [];
  for (const row of waiting) {
    const { id, type } = JSON.parse(row.event) as { id: string; type: string };
    const mode = Number(row.livemode) === 1 ? 'live' : 'test';
    const takers = endpoints.filter((e) => {
      const events = JSON.parse(e.events) as string[];
      return e.workspace_id === row.workspace_id && e.mode === mode && (events.includes('*') || events.includes(type));
    });
    if (takers.length === 0) continue;
    const at = Number(row.at);
    await db
      .insertInto('webhook_events')
      .values({ id, workspace_id: row.workspace_id, livemode: row.livemode, type, payload: row.event, created_at: at })
      .onConflict((oc) => oc.doNothing())
      .execute();
    for (const e of takers)
      await db
        .insertInto('webhook_deliveries')
        .values({
          id: newId('webhook_delivery'),
          workspace_id: row.workspace_id,
          endpoint_id: e.id,
          event_id: id,
          status: 'pending',
          attempts: 0,
          next_attempt_at: at,
          created_at: at,
          updated_at: at,
        })
        .execute();
  }
  await db.schema.dropIndex('change_log_event_waiting').execute();
  await db.schema.alterTable('change_log').dropColumn('event').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('change_log').addColumn('event', 'text').execute();
  await db.schema
    .createIndex('change_log_event_waiting')
    .on('change_log')
    .columns(['at', 'id'])
    .where(sql<boolean>`event IS NOT NULL`)
    .execute();
}
