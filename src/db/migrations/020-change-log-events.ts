import { sql, type Kysely } from 'kysely';

/**
 * A change's webhook event rides in its change-log row until the delivery worker turns it
 * into the outbox's event and deliveries (webhook-fan-out.repo.ts): the write inserts the row
 * anyway, so the event costs it a column, not two more rows and their indexes. The partial
 * index holds only the rows whose event is waiting, in the order the worker takes them (the
 * change's time, then its id: ids are time-ordered only byte for byte, which a PostgreSQL
 * collation need not follow).
 *
 * Expand only: a server of the previous version writes its events to the outbox directly and
 * leaves the column null, which is what this one does with rows it has no event for. Rolling
 * back past this migration leaves the events still waiting unsent (docs/operations.md).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('change_log').addColumn('event', 'text').execute();
  await db.schema
    .createIndex('change_log_event_waiting')
    .on('change_log')
    .columns(['at', 'id'])
    .where(sql<boolean>`event IS NOT NULL`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('change_log_event_waiting').execute();
  await db.schema.alterTable('change_log').dropColumn('event').execute();
}
