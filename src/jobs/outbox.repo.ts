import type { Insertable } from 'kysely';
import type { Db, OutboxTable } from '../db/schema.ts';

/** Emails kept for the console to show: when there is no SMTP_URL, or the server refused them. */
export async function keepInOutbox(db: Db, row: Insertable<OutboxTable>): Promise<void> {
  await db.insertInto('outbox').values(row).execute();
}
