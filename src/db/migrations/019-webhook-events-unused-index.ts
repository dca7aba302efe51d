import type { Kysely } from 'kysely';

/**
 * 011's index of webhook events by created_at: no query reads it (events are found through
 * their deliveries), and every write an endpoint listens to inserted into it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_events_created').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_events_created').on('webhook_events').column('created_at').execute();
}
