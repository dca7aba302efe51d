import type { Kysely } from 'kysely';

/**
 * An event's traceparent (docs/operations.md "Tracing"): the request that made it, so its
 * deliveries' attempts join that trace. Null unless tracing was on. An expand step: servers
 * older than it never read the column.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_events').addColumn('trace_parent', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_events').dropColumn('trace_parent').execute();
}
