import type { Db } from '../../src/db/schema.ts';

/**
 * What an undo of key K must leave, worked out from the change log alone and independently
 * of the undo code (DECISIONS "Change log and undo"):
 * - a field whose last change was not K's keeps its value (nobody else's change reverted);
 * - a field whose last changes were all K's is back to what it held before the first of
 *   them (every field K changed that nobody touched since is back);
 * - a customer whose last changes were all K's and include K creating or deleting it
 *   exists again as it did before them.
 * A deletion by anyone else touches every field. Customers whose restore was refused for a
 * taken email are left out (that refusal is a rule of its own).
 */
export interface LogRow {
  action: string;
  key_id: string | null;
  customer_version: number;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface CustomerSnapshot {
  exists: boolean;
  fields: Record<string, unknown>;
}

const EXISTENCE = new Set(['customer.create', 'customer.delete', 'customer.restore']);

/** The fields (columns, `tag:…`, `list:…`) the log's edits touched; existence is separate. */
export function fieldNames(log: LogRow[]): string[] {
  return [...new Set(log.flatMap((r) => (EXISTENCE.has(r.action) ? [] : Object.keys(r.after ?? {}))))];
}

export function expectedAfterUndo(keyId: string, log: LogRow[], now: CustomerSnapshot): CustomerSnapshot {
  const mine = (r: LogRow) => r.key_id === keyId;
  const suffix = (rows: LogRow[]) => {
    let i = rows.length;
    while (i > 0 && mine(rows[i - 1]!)) i--;
    return rows.slice(i);
  };
  const expected: CustomerSnapshot = { exists: now.exists, fields: { ...now.fields } };
  const tail = suffix(log);
  const firstExistence = tail.find((r) => EXISTENCE.has(r.action));
  if (firstExistence) expected.exists = firstExistence.action !== 'customer.create';
  for (const field of fieldNames(log)) {
    const touching = log.filter((r) => (EXISTENCE.has(r.action) ? !mine(r) : field in (r.after ?? {})));
    const first = suffix(touching).find((r) => !EXISTENCE.has(r.action));
    if (first) expected.fields[field] = first.before?.[field] ?? null;
  }
  return expected;
}

/** The customer as the oracle compares it: existence, columns and memberships by field name. */
export async function snapshot(db: Db, customerId: string, fieldNames: string[]): Promise<CustomerSnapshot> {
  const row = await db.selectFrom('customers').selectAll().where('id', '=', customerId).executeTakeFirstOrThrow();
  const tags = await db
    .selectFrom('customer_tags')
    .select(['tag_id', 'added_at', 'added_by_key_id'])
    .where('customer_id', '=', customerId)
    .execute();
  const lists = await db
    .selectFrom('customer_lists')
    .select(['list_id', 'status', 'added_at', 'unsubscribed_at', 'added_by_key_id'])
    .where('customer_id', '=', customerId)
    .execute();
  const fields: Record<string, unknown> = {};
  for (const name of fieldNames) {
    if (name.startsWith('tag:')) {
      const link = tags.find((t) => t.tag_id === name.slice(4));
      fields[name] = link ? { added_at: link.added_at, added_by_key_id: link.added_by_key_id } : null;
    } else if (name.startsWith('list:')) {
      const link = lists.find((l) => l.list_id === name.slice(5));
      fields[name] = link
        ? {
            status: link.status,
            added_at: link.added_at,
            unsubscribed_at: link.unsubscribed_at,
            added_by_key_id: link.added_by_key_id,
          }
        : null;
    } else fields[name] = (row as unknown as Record<string, unknown>)[name];
  }
  return { exists: row.deleted_at === null, fields };
}
