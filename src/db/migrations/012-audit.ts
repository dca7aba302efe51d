import type { Kysely } from 'kysely';

/**
 * The workspace's audit trail of people's actions (docs/console.md "Audit log") and the
 * staff invitations owners send (docs/console.md "Staff"). Both are read newest first within
 * one workspace, so every index leads with the workspace and ends with (at, id), the
 * keyset the audit page pages on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    // The staff id, or null for an operator or a job.
    .addColumn('actor_id', 'text')
    // The person as the page shows and filters them: a staff email or an operator's name.
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('detail', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_page').on('audit_log').columns(['workspace_id', 'at', 'id']).execute();
  await db.schema
    .createIndex('audit_log_actor')
    .on('audit_log')
    .columns(['workspace_id', 'actor', 'at', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_log_action')
    .on('audit_log')
    .columns(['workspace_id', 'action', 'at', 'id'])
    .execute();
  // The retention purge deletes by age across all workspaces.
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();

  // Only the SHA-256 of an invitation's token is kept, like a session's: the link is the secret.
  await db.schema
    .createTable('staff_invitations')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('staff_invitations_email')
    .on('staff_invitations')
    .columns(['workspace_id', 'email'])
    .execute();

  // An invitation email kept in the outbox carries its link: only owners may read it there.
  await db.schema
    .alterTable('outbox')
    .addColumn('owners_only', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox').dropColumn('owners_only').execute();
  await db.schema.dropTable('staff_invitations').execute();
  await db.schema.dropTable('audit_log').execute();
}
