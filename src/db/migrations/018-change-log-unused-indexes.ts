import type { Kysely } from 'kysely';

/**
 * Two change-log indexes no query reads since 017, each a B-tree every write still pays for:
 * 014's (key_id, at, customer_version, id), which 017's key-log index replaced for the key
 * page, and 002's (reverts), which only the key page of versions before 017 followed. The
 * version before this one (017 and later) reads neither, so a rollout can run both.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('change_log_key_order').ifExists().execute();
  await db.schema.dropIndex('change_log_reverts').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('change_log_reverts').on('change_log').column('reverts').execute();
  await db.schema
    .createIndex('change_log_key_order')
    .on('change_log')
    .columns(['key_id', 'at', 'customer_version', 'id'])
    .execute();
}
