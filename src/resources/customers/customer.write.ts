import type { CustomerTable, Db, Queryable } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { runWrite, type WriteHooks } from '../../db/write-tx.ts';
import { ApiError, conflict, invalid, notFound } from '../../errors.ts';
import { isIdOf, newId } from '../../lib/ids.ts';
import { recordChange } from '../changes/change-log.repo.ts';
import type { CreateCustomerBody, UpdateCustomerBody } from './customer.body.ts';
import { changedColumns, EDITABLE, toCustomerPatch, todayUtc, type CustomerPatch } from './customer.input.ts';
import { toCustomers } from './customer.mapper.ts';
import { loadMemberships } from './customer.repo.ts';
import type { Customer } from './customer.schema.ts';
import { bumpCustomer, lockCustomer, emailOwner, insertCustomer } from './customer.write-repo.ts';
import { workspaceCountry } from './phone.ts';
import { actorKeyId, masksContacts, type WriteScope } from './write-scope.ts';

/** Create, update and delete a customer (SPEC "Behaviour rules" 1-5). */
export interface CustomerResult {
  record: Customer;
  version: string;
}

export interface DeletedCustomer {
  id: string;
  object: 'customer';
  deleted: true;
}

const EMAIL_TAKEN = 'Another customer already has this email. Look it up with GET /customers?email= first.';

export async function presentCustomer(db: Queryable, scope: WriteScope, row: CustomerTable): Promise<CustomerResult> {
  const memberships = await loadMemberships(db, scope.workspaceId, [row.id]);
  const [record] = toCustomers([row], memberships, { masked: masksContacts(scope), now: scope.clock() });
  return { record: record!, version: String(row.version) };
}

export function pickEditable(row: Pick<CustomerTable, (typeof EDITABLE)[number]>): Record<string, unknown> {
  return Object.fromEntries(EDITABLE.map((c) => [c, row[c]]));
}

async function patchFrom(db: Db, scope: WriteScope, body: UpdateCustomerBody): Promise<CustomerPatch> {
  const country = body.phone ? await workspaceCountry(db, scope.workspaceId) : null;
  return toCustomerPatch(body, { today: todayUtc(scope.clock()), defaultCountry: country });
}

const EMPTY: Omit<Pick<CustomerTable, (typeof EDITABLE)[number]>, 'first_name'> = {
  last_name: null,
  nickname: null,
  email: null,
  phone: null,
  date_of_birth: null,
  company: null,
  gender: null,
  adult: null,
  marketing_consent: 0,
  how_heard_about_us: null,
  address_line1: null,
  address_line2: null,
  address_suburb: null,
  address_state: null,
  address_postcode: null,
  address_country: null,
};

export async function createCustomer(
  db: Db,
  scope: WriteScope,
  body: CreateCustomerBody,
  hooks: WriteHooks<CustomerResult> = {},
): Promise<CustomerResult> {
  const patch = await patchFrom(db, scope, body);
  const first_name = patch.first_name;
  if (first_name === undefined) throw invalid('first_name: is required', [{ field: 'first_name', message: 'is required' }]);
  return runWrite(db, hooks, async (tx) => {
    const now = scope.clock();
    if (patch.email && (await emailOwner(tx, scope, patch.email))) throw conflict(EMAIL_TAKEN);
    const row: CustomerTable = {
      id: newId('customer'),
      workspace_id: scope.workspaceId,
      livemode: scope.livemode ? 1 : 0,
      ...EMPTY,
      ...patch,
      first_name,
      member: 0,
      member_tier: null,
      version: 1,
      created_by_key_id: actorKeyId(scope),
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    // The unique index settles a race the check above cannot see (PostgreSQL).
    if (!(await insertCustomer(tx, row))) throw conflict(EMAIL_TAKEN);
    await recordChange(tx, scope, now, {
      action: 'customer.create',
      customerId: row.id,
      version: 1,
      before: null,
      after: pickEditable(row),
    });
    return presentCustomer(tx, scope, row);
  });
}

/** If-Match as the route parsed it: the versions listed, or "*" (any current version). */
export type IfMatch = string[] | '*' | null;

export async function updateCustomer(
  db: Db,
  scope: WriteScope,
  id: string,
  body: UpdateCustomerBody,
  ifMatch: IfMatch = null,
  hooks: WriteHooks<CustomerResult> = {},
): Promise<CustomerResult> {
  if (!isIdOf('customer', id)) throw notFound(`No customer ${id.slice(0, 64)}.`);
  const patch = await patchFrom(db, scope, body);
  return runWrite(db, hooks, async (tx) => {
    const row = await lockCustomer(tx, scope, id);
    if (!row) throw notFound(`No customer ${id}.`);
    // SPEC "Behaviour rules" 4: a stale If-Match writes nothing.
    if (ifMatch !== null && ifMatch !== '*' && !ifMatch.includes(String(row.version))) {
      throw new ApiError('precondition_failed', `The customer is at version ${row.version}; read it again, re-check, then retry.`);
    }
    // SPEC "Behaviour rules" 3: once set, email and phone cannot change or be cleared here.
    for (const field of ['email', 'phone'] as const) {
      if (patch[field] !== undefined && row[field] !== null && patch[field] !== row[field]) {
        throw conflict(`The customer's ${field} is set and cannot be changed or cleared through this API.`);
      }
    }
    const changed = changedColumns(row, patch);
    if (changed.length === 0) return presentCustomer(tx, scope, row);
    if (changed.includes('email') && (await emailOwner(tx, scope, patch.email!, row.id))) throw conflict(EMAIL_TAKEN);
    const set = Object.fromEntries(changed.map((c) => [c, patch[c]]));
    const now = scope.clock();
    let updated: CustomerTable;
    try {
      updated = await bumpCustomer(tx, row, now, set);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN);
      throw err;
    }
    await recordChange(tx, scope, now, {
      action: 'customer.update',
      customerId: id,
      version: updated.version,
      before: Object.fromEntries(changed.map((c) => [c, row[c]])),
      after: set,
    });
    return presentCustomer(tx, scope, updated);
  });
}

/** SPEC "Behaviour rules" 5: the customer goes; bookings, orders and tickets keep its id. */
export async function deleteCustomer(db: Db, scope: WriteScope, id: string): Promise<DeletedCustomer> {
  if (!isIdOf('customer', id)) throw notFound(`No customer ${id.slice(0, 64)}.`);
  return runWrite(db, {}, async (tx) => {
    const row = await lockCustomer(tx, scope, id);
    if (!row) throw notFound(`No customer ${id}.`);
    const now = scope.clock();
    const updated = await bumpCustomer(tx, row, now, { deleted_at: now });
    await recordChange(tx, scope, now, {
      action: 'customer.delete',
      customerId: id,
      version: updated.version,
      before: { deleted_at: null },
      after: { deleted_at: now },
    });
    return { id, object: 'customer', deleted: true };
  });
}
