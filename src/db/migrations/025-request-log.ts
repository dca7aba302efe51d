import type { Kysely } from 'kysely';

/**
 * The request log (DECISIONS "Request log, key rolling, allowed addresses"): one row a request
 * that carried a valid key, its id the request's (time-ordered, so rows append). Read by key
 * newest first, found by id, purged by age.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('request_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('code', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('version', 'text')
    .addColumn('request_body', 'text')
    .addColumn('response_body', 'text')
    .addColumn('truncated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('request_log_key').on('request_log').columns(['key_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('request_log_created').on('request_log').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('request_log').execute();
}
