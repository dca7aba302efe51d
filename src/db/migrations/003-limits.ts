import type { Kysely } from 'kysely';

/**
 * Daily limit counts of the in-process limit store (SPEC "Limits": daily budgets survive a
 * restart). One row per counter and UTC day; a flush adds the increments made since the
 * last one, so several processes without Redis still add up rather than overwrite.
 * With REDIS_URL the counts live in Redis and this table stays empty.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('limit_counters')
    .addColumn('counter_id', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('limit_counters_window').on('limit_counters').column('window_start').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('limit_counters').execute();
}
