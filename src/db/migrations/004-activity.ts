import type { Kysely } from 'kysely';

/**
 * What the hourly unusual-activity check reads (DECISIONS "Unusual activity"), and the
 * outbox for pause emails when no SMTP server is configured. The tracker batches these
 * writes in memory, so a request never waits on them (src/jobs/activity-tracker.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Requests per live key per clock hour: one row per key-hour, 7 days kept.
  await db.schema
    .createTable('key_activity_hours')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('hour_start', 'bigint', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_activity_hours_pk', ['key_id', 'hour_start'])
    .execute();
  await db.schema.createIndex('key_activity_hours_hour').on('key_activity_hours').column('hour_start').execute();

  // The last time each customer was sent to each live key: "distinct customers in the
  // trailing 24 hours" is a count over one index range, however often they were read.
  await db.schema
    .createTable('key_customer_reads')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('key_customer_reads_pk', ['key_id', 'customer_id'])
    .execute();
  await db.schema
    .createIndex('key_customer_reads_seen')
    .on('key_customer_reads')
    .columns(['key_id', 'last_seen_at'])
    .execute();
  // The retention purge deletes by age across all keys.
  await db.schema.createIndex('key_customer_reads_age').on('key_customer_reads').column('last_seen_at').execute();

  // A resume forgives what the key did before it (otherwise the next check re-pauses it).
  await db.schema.alterTable('api_keys').addColumn('resumed_at', 'bigint').execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    /** Why SMTP did not take it (null when SMTP is simply not configured). */
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_workspace').on('outbox').columns(['workspace_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('outbox').execute();
  await db.schema.alterTable('api_keys').dropColumn('resumed_at').execute();
  await db.schema.dropTable('key_customer_reads').execute();
  await db.schema.dropTable('key_activity_hours').execute();
}
