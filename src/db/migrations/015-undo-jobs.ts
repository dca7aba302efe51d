import { sql, type Kysely } from 'kysely';

/**
 * The console's undo runs as a job (docs/console.md "Undo"): one row per undo asked for, with
 * who asked, its progress and its end, and the changes it left alone with why. A server
 * process claims a queued job (or one whose claim ran out) and runs it in batches; the claim
 * token and its lease say which process holds it. At most one job per key is queued or
 * running: the partial unique index settles two requests that race.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('undo_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    /** Who asked, as the change log records the undo's changes: 'staff' or 'operator', and the id. */
    .addColumn('requested_by_kind', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text', (c) => c.notNull())
    /** Who asked, as the audit log names them (JSON: the person, their email and address). */
    .addColumn('audit_actor', 'text', (c) => c.notNull())
    /** queued, running, done or failed. */
    .addColumn('status', 'text', (c) => c.notNull())
    /** The key's changes not yet undone when it was asked for: the ones it undoes (made at or before `until`). */
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('until', 'bigint', (c) => c.notNull())
    /** Changes looked at so far: reverted (wholly or in part) and left as they were. */
    .addColumn('reverted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
    /** Rows in undo_job_skips so far (a skipped change may have several, one a field). */
    .addColumn('skip_rows', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('claim', 'text')
    .addColumn('claimed_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('finished_at', 'bigint')
    .execute();
  await sql`CREATE UNIQUE INDEX undo_jobs_one_open ON undo_jobs (key_id) WHERE status IN ('queued', 'running')`.execute(
    db,
  );
  await db.schema.createIndex('undo_jobs_key').on('undo_jobs').columns(['key_id', 'created_at']).execute();
  await db.schema.createIndex('undo_jobs_status').on('undo_jobs').columns(['status', 'created_at']).execute();
  await db.schema
    .createTable('undo_job_skips')
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('change_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('field', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('by', 'text')
    .addPrimaryKeyConstraint('undo_job_skips_pk', ['job_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('undo_job_skips').execute();
  await db.schema.dropTable('undo_jobs').execute();
}
