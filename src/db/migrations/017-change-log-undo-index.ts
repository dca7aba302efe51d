import { sql, type Kysely } from 'kysely';

/**
 * A key's log (its own changes and the undos of them) read from one index in the page's
 * order, instead of following every undo row's `reverts` to the change it undid:
 * `reverts_key_id` names the key whose change a row reverts ('' when that change is gone or
 * was not a key's), written by the undo from now on and filled here, set-wise through the
 * `reverts` index, for the rows already there. The index is on coalesce(key_id,
 * reverts_key_id): a key's own rows and its undo rows are one range, counted and paged there
 * (the two columns last, so PostgreSQL reads the range from the index alone).
 *
 * Expand only: a server of the previous version writes undo rows without the column, and a
 * partial index, in page order too, keeps those (few, and only while both versions serve)
 * cheap to find.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('change_log').addColumn('reverts_key_id', 'text').execute();
  await sql`
    UPDATE change_log
    SET reverts_key_id = COALESCE((SELECT c.key_id FROM change_log c WHERE c.id = change_log.reverts), '')
    WHERE reverts IS NOT NULL AND reverts_key_id IS NULL
  `.execute(db);
  await sql`
    CREATE INDEX change_log_log_key
    ON change_log (coalesce(key_id, reverts_key_id), at, customer_version, id, key_id, reverts_key_id)
  `.execute(db);
  await db.schema
    .createIndex('change_log_reverts_unfilled')
    .on('change_log')
    .columns(['reverts_key_id', 'at', 'customer_version', 'id', 'reverts'])
    .where(sql<boolean>`reverts IS NOT NULL AND reverts_key_id IS NULL`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('change_log_reverts_unfilled').execute();
  await db.schema.dropIndex('change_log_log_key').execute();
  await db.schema.alterTable('change_log').dropColumn('reverts_key_id').execute();
}
