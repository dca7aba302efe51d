import type { Insertable } from 'kysely';
import type { Db, OutboxTable, Tx } from '../db/schema.ts';

/** Emails kept for the console to show: when there is no SMTP_URL, or the server refused them. */
export async function keepInOutbox(tx: Tx, row: Insertable<OutboxTable>): Promise<void> {
  await tx.insertInto('outbox').values(row).execute();
}

/** A workspace's kept emails, newest first (the console's notifications page). */
export async function listOutbox(
  db: Db,
  workspaceId: string,
  page: { offset: number; limit: number },
): Promise<{ emails: OutboxTable[]; total: number }> {
  const emails = await db
    .selectFrom('outbox')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const count = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return { emails, total: Number(count.n) };
}
