import { notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import type { Actor } from '../actor.model.ts';
import { JsonText } from '../json-text.model.ts';
import { finishPage, pageText, planPage, type PageParams } from '../paging.model.ts';
import { adultCutoff, maskCustomerText } from './customer-record.model.ts';
import { findCustomerJson, pageCustomersJson, type CustomerJsonRow, type JsonReader } from './customer-json.repo.ts';

/**
 * Reading customers: the list with its email look-up, and one customer with its version.
 * The database writes each record's JSON (customer-json.repo.ts); a masked key's contacts
 * are masked here, on the text.
 */
export interface CustomerListParams extends PageParams {
  email?: string;
}

function recordFor(actor: Actor, row: CustomerJsonRow): string {
  return actor.contactsMasked ? maskCustomerText(row.record) : row.record;
}

export async function listCustomers(reader: JsonReader, actor: Actor, params: CustomerListParams): Promise<JsonText> {
  // Exact look-up, any case (SPEC "Read endpoints"); works for masked keys too.
  const email = params.email === undefined ? undefined : params.email.trim().toLowerCase();
  const plan = planPage('customers', params, { email: email ?? null }, actor.pageSize);
  const rows = await pageCustomersJson(
    reader,
    actor,
    { email, updatedSince: plan.updatedSince, after: plan.after, take: plan.limit + 1 },
    adultCutoff(actor.clock()),
  );
  const page = finishPage(plan, rows, (row) => recordFor(actor, row));
  const ids = rows.slice(0, page.data.length).map((row) => row.id);
  return new JsonText(pageText(page), ids);
}

export async function getCustomer(
  reader: JsonReader,
  actor: Actor,
  id: string,
): Promise<{ record: JsonText; version: string }> {
  if (!isIdOf('customer', id)) throw notFound(`No customer ${id.slice(0, 64)}.`);
  const row = await findCustomerJson(reader, actor, id, adultCutoff(actor.clock()));
  if (!row) throw notFound(`No customer ${id}.`);
  return { record: new JsonText(recordFor(actor, row), [row.id]), version: String(row.version) };
}
