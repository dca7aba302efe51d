import type { Kysely } from 'kysely';

/**
 * The events feed (DECISIONS "Events feed"): every change now writes its event, read newest
 * first by workspace and mode, and purged by age per workspace through the same index; a
 * delivery is found by its event when the purge asks whether one is still pending.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_events_feed')
    .on('webhook_events')
    .columns(['workspace_id', 'livemode', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event').execute();
  await db.schema.dropIndex('webhook_events_feed').execute();
}
