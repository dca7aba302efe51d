import type { Insertable } from 'kysely';
import type { Db, Tx } from '../db/schema.ts';
import type { OutboxTable } from '../db/tables/console.ts';

/** Emails kept for the console to show: when there is no SMTP_URL, or the server refused them. */
export async function keepInOutbox(tx: Tx, row: Insertable<OutboxTable>): Promise<void> {
  await tx.insertInto('outbox').values(row).execute();
}

/** A workspace's kept emails, newest first (the console's notifications page). */
export async function listOutbox(
  db: Db,
  workspaceId: string,
  page: { offset: number; limit: number },
  options: { owner?: boolean } = {},
): Promise<{ emails: OutboxTable[]; total: number }> {
  // An invitation's link is for owners only (012-audit): anyone else reading it could join as its role.
  const hidden = options.owner ? -1 : 1;
  const emails = await db
    .selectFrom('outbox')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('owners_only', '!=', hidden)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const count = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('owners_only', '!=', hidden)
    .executeTakeFirstOrThrow();
  return { emails, total: Number(count.n) };
}
