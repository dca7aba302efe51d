import type { Kysely } from 'kysely';

/**
 * Customer writes: the idempotency records (DECISIONS "Idempotency") and the change log
 * (DECISIONS "Change log and undo"). Both are written in the same transaction as the
 * customer change they describe.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // One row per (key, Idempotency-Key): the primary key is what makes a retry exactly-once.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['key_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();

  // Every change to a customer, its tags or its lists. `customer_version` is the version the
  // change gave the customer: it orders a customer's changes exactly, whoever made them.
  await db.schema
    .createTable('change_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text')
    .addColumn('request_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('object', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('customer_version', 'integer', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('reverts', 'text')
    .addColumn('undone_at', 'bigint')
    .addColumn('undo_outcome', 'text')
    .execute();
  await db.schema.createIndex('change_log_key').on('change_log').columns(['key_id', 'undone_at', 'at']).execute();
  await db.schema
    .createIndex('change_log_object')
    .on('change_log')
    .columns(['object_id', 'customer_version'])
    .execute();
  await db.schema.createIndex('change_log_at').on('change_log').column('at').execute();
  await db.schema.createIndex('change_log_reverts').on('change_log').column('reverts').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_log').execute();
  await db.schema.dropTable('idempotency_keys').execute();
}
