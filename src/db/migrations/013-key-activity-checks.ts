import type { Kysely } from 'kysely';

/**
 * What the hourly unusual-activity check saw for each live key it judged: the figures and the
 * thresholds it applied, and its verdict. The key's page draws them (requests an hour against
 * the request threshold, distinct customers against half the workspace), and a key the check
 * paused shows the figure that did it. Kept as long as the hourly counts (8 days).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('key_activity_checks')
    .addColumn('key_id', 'text', (c) => c.notNull())
    /** The judged clock hour's start. */
    .addColumn('hour_start', 'bigint', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    /** The most requests that hour could have had without a pause; null while the first sync is exempt. */
    .addColumn('request_threshold', 'integer')
    .addColumn('customers_sent', 'integer', (c) => c.notNull())
    /** More distinct customers than this in 24 hours pauses; null when the workspace is too small for the rule. */
    .addColumn('customer_threshold', 'integer')
    /** 'requests' or 'customers' when the check found the hour unusual (it then pauses the key unless a person changed it first). */
    .addColumn('verdict', 'text')
    .addPrimaryKeyConstraint('key_activity_checks_pk', ['key_id', 'hour_start'])
    .execute();
  await db.schema.createIndex('key_activity_checks_hour').on('key_activity_checks').column('hour_start').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('key_activity_checks').execute();
}
