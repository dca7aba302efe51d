import type { Kysely } from 'kysely';

/**
 * The developer console (docs/console.md): staff sessions and failed sign-ins live in the database,
 * so a server can end a session (sign-out, a password change) and several processes share
 * them. A key's last use is kept on the key for the keys page.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // The cookie carries a random token; only its SHA-256 is stored, so a leaked table signs nobody in.
  await db.schema
    .createTable('console_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('staff_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_staff').on('console_sessions').column('staff_id').execute();

  // One row per failed sign-in: counted per email and per address over the last 15 minutes.
  await db.schema
    .createTable('console_sign_in_failures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_sign_in_failures_email')
    .on('console_sign_in_failures')
    .columns(['email', 'at'])
    .execute();
  await db.schema
    .createIndex('console_sign_in_failures_address')
    .on('console_sign_in_failures')
    .columns(['address', 'at'])
    .execute();

  // A lock-out: `email:<address>` or `address:<bucket>`, refused until `until`.
  await db.schema
    .createTable('console_lockouts')
    .addColumn('subject', 'text', (c) => c.primaryKey())
    .addColumn('until', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
  await db.schema.dropTable('console_lockouts').execute();
  await db.schema.dropTable('console_sign_in_failures').execute();
  await db.schema.dropTable('console_sessions').execute();
}
