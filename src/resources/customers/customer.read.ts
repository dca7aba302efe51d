import type { Queryable } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import type { RequestScope } from '../../http/types.ts';
import { isIdOf } from '../../lib/ids.ts';
import { finishPage, planPage, type Page, type PageParams } from '../paging.ts';
import { toCustomers } from './customer.mapper.ts';
import { findCustomer, loadMemberships, pageCustomers } from './customer.repo.ts';
import type { Customer } from './customer.schema.ts';

/** Reading customers: the list with its email look-up, and one customer with its version. */
export interface CustomerListParams extends PageParams {
  email?: string;
}

export async function listCustomers(
  db: Queryable,
  scope: RequestScope,
  params: CustomerListParams,
  now = Date.now(),
): Promise<Page<Customer>> {
  // Exact look-up, any case (SPEC "Read endpoints"); works for masked keys too.
  const email = params.email === undefined ? undefined : params.email.trim().toLowerCase();
  const plan = planPage('customers', params, { email: email ?? null }, scope.key.limits);
  const rows = await pageCustomers(db, scope, plan, email);
  const shown = rows.slice(0, plan.limit);
  const memberships = await loadMemberships(
    db,
    scope.workspaceId,
    shown.map((r) => r.id),
  );
  const records = toCustomers(shown, memberships, { masked: scope.key.contactsMasked, now });
  const byId = new Map(records.map((r) => [r.id, r]));
  return finishPage(plan, rows, (row) => byId.get(row.id)!);
}

export async function getCustomer(
  db: Queryable,
  scope: RequestScope,
  id: string,
  now = Date.now(),
): Promise<{ record: Customer; version: string }> {
  if (!isIdOf('customer', id)) throw notFound(`No customer ${id.slice(0, 64)}.`);
  const row = await findCustomer(db, scope, id);
  if (!row) throw notFound(`No customer ${id}.`);
  const memberships = await loadMemberships(db, scope.workspaceId, [id]);
  const [record] = toCustomers([row], memberships, { masked: scope.key.contactsMasked, now });
  return { record: record!, version: String(row.version) };
}
