import { sql, type Kysely } from 'kysely';

/**
 * Rolling a key and binding it to addresses (DECISIONS "Request log, key rolling, allowed
 * addresses"): the secret a roll replaced, which works until its own time, found by its digest
 * as the current one is; and the addresses the key may be used from (a JSON array, empty for anywhere).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('previous_secret_hash', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('previous_secret_expires_at', 'bigint').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('allowed_ips', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
    .execute();
  await db.schema
    .createIndex('api_keys_previous_secret')
    .on('api_keys')
    .column('previous_secret_hash')
    .where(sql.ref('previous_secret_hash'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('api_keys_previous_secret').execute();
  for (const column of ['allowed_ips', 'previous_secret_expires_at', 'previous_secret_hash'])
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
}
