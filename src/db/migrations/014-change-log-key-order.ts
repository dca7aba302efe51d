import type { Kysely } from 'kysely';

/**
 * A key's change log in the order the console pages it (newest first: at, version, id), so a
 * page of a key with 100,000 changes reads its 20 rows from the index instead of sorting them
 * all. 002's (key_id, undone_at, at) serves the undo, which looks for changes not yet undone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('change_log_key_order')
    .on('change_log')
    .columns(['key_id', 'at', 'customer_version', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('change_log_key_order').execute();
}
