import type { Queryable } from '../../db/schema.ts';
import type { CursorPosition } from '../../lib/cursor.ts';
import type { Scope } from '../actor.model.ts';
import { pageSteps } from '../paging.repo.ts';

/** A deleted customer as the list shows it: its place in the list and when it went. */
export interface CustomerDeletionRow {
  id: string;
  created_at: number;
  deleted_at: number;
}

export interface DeletionPageQuery {
  email: string | undefined;
  /** Deleted at or after this instant (the later of `updated_since` and the retention horizon). */
  deletedSince: number;
  updatedSince: number;
  after: CursorPosition | null;
  take: number;
}

/**
 * One page of the customers deleted since an instant, in list order. Every path that deletes
 * a customer (the API, an undo of its create, DELETE /test-data) keeps its row and sets
 * `deleted_at` in the same transaction, and moves `updated_at` with it, so the row is the
 * deletion's record and `updated_at >= since` keeps this on the index the list uses.
 */
export async function pageCustomerDeletions(
  db: Queryable,
  scope: Scope,
  page: DeletionPageQuery,
): Promise<CustomerDeletionRow[]> {
  let query = db
    .selectFrom('customers')
    .select(['customers.id', 'customers.created_at', 'customers.deleted_at'])
    .where('customers.workspace_id', '=', scope.workspaceId)
    .where('customers.livemode', '=', scope.livemode ? 1 : 0)
    .where('customers.deleted_at', 'is not', null)
    .where('customers.deleted_at', '>=', page.deletedSince);
  if (page.email !== undefined) query = query.where('customers.email', '=', page.email);
  const rows = await pageSteps(query, 'customers', page.updatedSince, page.after, page.take).execute();
  return rows.map((r) => ({ id: r.id, created_at: Number(r.created_at), deleted_at: Number(r.deleted_at) }));
}
