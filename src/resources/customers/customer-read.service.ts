import { invalid, notFound } from '../../errors.ts';
import { CHANGE_LOG_RETENTION_MS } from '../../jobs/retention.ts';
import type { CursorPosition } from '../../lib/cursor.ts';
import { toInstant } from '../../lib/time.ts';
import { isIdOf } from '../../lib/ids.ts';
import { maskRecordJson } from '../../lib/mask.ts';
import type { Actor } from '../actor.model.ts';
import { JsonText } from '../json-text.model.ts';
import { finishPage, pageText, planPage, type PageParams } from '../paging.model.ts';
import { pageCustomerDeletions } from './customer-deletion.repo.ts';
import type { Queryable } from '../../db/schema.ts';
import { pageCustomersJson, readCustomerJson, type CustomerJsonRow } from './customer-json.repo.ts';

/** List order: created_at, then id, both newest first (DECISIONS "Lists and ids"). */
function newerFirst(a: { created_at: number; id: string }, b: { created_at: number; id: string }): number {
  const at = Number(b.created_at) - Number(a.created_at);
  if (at !== 0) return at;
  return a.id > b.id ? -1 : a.id < b.id ? 1 : 0;
}

/**
 * Reading customers: the list with its email look-up, and one customer with its version.
 * The database writes each record's JSON (customer-json.repo.ts); a contacts-masked key's
 * copy is masked after (customerSeenBy).
 */
export interface CustomerListParams extends PageParams {
  email?: string;
  include_deleted?: boolean;
}

export async function listCustomers(db: Queryable, actor: Actor, params: CustomerListParams): Promise<JsonText> {
  // Exact look-up, any case (SPEC "Read endpoints"); works for masked keys too.
  const email = params.email === undefined ? undefined : params.email.trim().toLowerCase();
  const deletions = deletionsWanted(params);
  // Bound into the cursor only when asked for, so every other list's cursors stay as they were.
  const filters = deletions ? { email: email ?? null, include_deleted: true } : { email: email ?? null };
  const plan = planPage('customers', params, filters, actor.pageSize);
  const query = { email, updatedSince: plan.updatedSince, after: plan.after, take: plan.limit + 1 };
  const customers = (await pageCustomersJson(db, actor, query)).map((row) => ({
    ...row,
    record: customerSeenBy(actor, row.record),
  }));
  const rows =
    deletions && plan.updatedSince !== null
      ? withDeletions(
          customers,
          await pageDeletions(db, actor, { ...query, updatedSince: plan.updatedSince }),
          query.take,
        )
      : customers;
  const page = finishPage(plan, rows, (row) => row.record);
  // Only customers sent count as activity: a deletion carries nothing of the customer.
  const ids = rows
    .slice(0, page.data.length)
    .filter((row) => !('deletedAt' in row))
    .map((row) => row.id);
  return new JsonText(pageText(page), ids);
}

/** `include_deleted=true` is a part of an incremental sync: it needs `updated_since` (DECISIONS "Deletions for pollers"). */
function deletionsWanted(params: CustomerListParams): boolean {
  if (params.include_deleted !== true) return false;
  if (params.updated_since === undefined) {
    throw invalid('include_deleted=true lists deletions since an instant: send it with updated_since.', [
      { field: 'include_deleted', message: 'needs updated_since' },
    ]);
  }
  return true;
}

interface DeletionListRow {
  id: string;
  created_at: number;
  deletedAt: number;
  record: string;
}

/** The deletions of the same page window, as list records; kept as long as the change log. */
async function pageDeletions(
  db: Queryable,
  actor: Actor,
  query: { email: string | undefined; updatedSince: number; after: CursorPosition | null; take: number },
): Promise<DeletionListRow[]> {
  const horizon = actor.clock() - CHANGE_LOG_RETENTION_MS;
  const rows = await pageCustomerDeletions(db, actor, {
    ...query,
    deletedSince: Math.max(query.updatedSince, horizon),
  });
  return rows.map((r) => ({
    id: r.id,
    created_at: r.created_at,
    deletedAt: r.deleted_at,
    record: JSON.stringify({ id: r.id, object: 'customer', deleted: true, deleted_at: toInstant(r.deleted_at) }),
  }));
}

/**
 * Customers and deletions of one window, merged in list order (created_at, then id, newest
 * first). Each was fetched to the page's size and one more, so the first that many of the
 * merge are the first that many of both together, and one cursor walks both.
 */
function withDeletions(
  customers: CustomerJsonRow[],
  deletions: DeletionListRow[],
  take: number,
): (CustomerJsonRow | DeletionListRow)[] {
  const merged: (CustomerJsonRow | DeletionListRow)[] = [];
  let c = 0;
  let d = 0;
  while (merged.length < take && (c < customers.length || d < deletions.length)) {
    const a = customers[c];
    const b = deletions[d];
    if (b === undefined || (a !== undefined && newerFirst(a, b) < 0)) merged.push(customers[c++]!);
    else merged.push(deletions[d++]!);
  }
  return merged;
}

export async function getCustomer(
  db: Queryable,
  actor: Actor,
  id: string,
): Promise<{ record: JsonText; version: string }> {
  if (!isIdOf('customer', id)) throw notFound(`No customer ${id.slice(0, 64)}.`);
  const row = await readCustomerJson(db, actor, id);
  if (!row) throw notFound(`No customer ${id}.`);
  return { record: new JsonText(customerSeenBy(actor, row.record), [row.id]), version: String(row.version) };
}

/** DECISIONS "Keys": a customer's JSON as the actor sees it, contacts masked for a contacts-masked key. */
export function customerSeenBy(actor: Pick<Actor, 'contactsMasked'>, json: string): string {
  return actor.contactsMasked ? maskRecordJson('customer', json) : json;
}
