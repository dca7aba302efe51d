import type { Queryable } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import type { Actor } from '../actor.model.ts';
import { finishPage, planPage, type Page, type PageParams } from '../paging.model.ts';
import { toCustomers } from './customer-record.model.ts';
import { findCustomer, loadMemberships, pageCustomers } from './customer.repo.ts';
import type { Customer } from './customer.schema.ts';

/** Reading customers: the list with its email look-up, and one customer with its version. */
export interface CustomerListParams extends PageParams {
  email?: string;
}

export async function listCustomers(db: Queryable, actor: Actor, params: CustomerListParams): Promise<Page<Customer>> {
  // Exact look-up, any case (SPEC "Read endpoints"); works for masked keys too.
  const email = params.email === undefined ? undefined : params.email.trim().toLowerCase();
  const plan = planPage('customers', params, { email: email ?? null }, actor.pageSize);
  const rows = await pageCustomers(db, actor, plan, email);
  const shown = rows.slice(0, plan.limit);
  const memberships = await loadMemberships(
    db,
    actor.workspaceId,
    shown.map((r) => r.id),
  );
  const records = toCustomers(shown, memberships, { masked: actor.contactsMasked, now: actor.clock() });
  const byId = new Map(records.map((r) => [r.id, r]));
  return finishPage(plan, rows, (row) => byId.get(row.id)!);
}

export async function getCustomer(
  db: Queryable,
  actor: Actor,
  id: string,
): Promise<{ record: Customer; version: string }> {
  if (!isIdOf('customer', id)) throw notFound(`No customer ${id.slice(0, 64)}.`);
  const row = await findCustomer(db, actor, id);
  if (!row) throw notFound(`No customer ${id}.`);
  const memberships = await loadMemberships(db, actor.workspaceId, [id]);
  const [record] = toCustomers([row], memberships, { masked: actor.contactsMasked, now: actor.clock() });
  return { record: record!, version: String(row.version) };
}
