import type { Kysely } from 'kysely';

/**
 * When the warning that an endpoint is failing went out (DECISIONS "Events feed", recovery):
 * one email a run of failures, so the column says it was sent; cleared with `failing_since`.
 * An expand step: servers older than it never read the column.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('failing_warned_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('failing_warned_at').execute();
}
