import { sql } from 'kysely';
import type { Queryable } from '../db/schema.ts';
import type { TableName } from './record-kinds.ts';

/**
 * What storage already holds for the ids a file names: whose workspace each belongs to,
 * its mode and, for events, their date ids (a ticket's date must be one of its event's).
 * Only for judging lines: what a write derives from the stored row (updated_at, version)
 * is read by the write itself, as this may be stale by then (import.repo.ts).
 */
export interface ExistingRow {
  workspaceId: string;
  livemode: boolean | null;
  deleted: boolean;
  dates: Set<string> | null;
}

const MODE_TABLES = new Set<TableName>(['customers', 'bookings', 'orders']);
const BATCH = 500;

export async function loadExisting(
  db: Queryable,
  table: TableName,
  ids: Iterable<string>,
): Promise<Map<string, ExistingRow>> {
  const all = [...new Set(ids)];
  const found = new Map<string, ExistingRow>();
  for (let i = 0; i < all.length; i += BATCH) {
    const columns = [
      'id',
      'workspace_id',
      MODE_TABLES.has(table) ? 'livemode' : sql<null>`null`.as('livemode'),
      table === 'customers' ? 'deleted_at' : sql<null>`null`.as('deleted_at'),
      table === 'events' ? 'data' : sql<null>`null`.as('data'),
    ];
    const rows = (await db
      .selectFrom(table as 'customers')
      .select(columns as never)
      .where('id', 'in', all.slice(i, i + BATCH))
      .execute()) as unknown as Array<{
      id: string;
      workspace_id: string;
      livemode: number | null;
      deleted_at: number | null;
      data: string | null;
    }>;
    for (const r of rows) {
      found.set(r.id, {
        workspaceId: r.workspace_id,
        livemode: r.livemode === null ? null : r.livemode === 1,
        deleted: r.deleted_at !== null,
        dates:
          r.data === null
            ? null
            : new Set((JSON.parse(r.data) as { dates: Array<{ id: string }> }).dates.map((d) => d.id)),
      });
    }
  }
  return found;
}

/** Customers of this workspace now holding these emails: `${livemode}:${email}` -> id. */
export async function loadEmails(
  db: Queryable,
  workspaceId: string,
  emails: Iterable<string>,
): Promise<Map<string, string>> {
  const all = [...new Set(emails)];
  const owners = new Map<string, string>();
  for (let i = 0; i < all.length; i += BATCH) {
    const rows = await db
      .selectFrom('customers')
      .select(['id', 'livemode', 'email'])
      .where('workspace_id', '=', workspaceId)
      .where('deleted_at', 'is', null)
      .where('email', 'in', all.slice(i, i + BATCH))
      .execute();
    for (const r of rows) owners.set(`${r.livemode === 1}:${r.email}`, r.id);
  }
  return owners;
}
