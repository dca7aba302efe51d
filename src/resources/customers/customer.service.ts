import type { CustomerTable } from '../../db/tables/customer.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { ApiError, conflict, invalid, notFound } from '../../errors.ts';
import { isIdOf, newId } from '../../lib/ids.ts';
import { actorKeyId, type Actor } from '../actor.model.ts';
import { firstVenueCountry } from '../venues/venue.repo.ts';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { PlanWrite, Written } from '../writes/write.pipeline.ts';
import type { CreateCustomerBody, UpdateCustomerBody } from './customer-body.schema.ts';
import {
  changedColumns,
  EDITABLE,
  type EditableColumn,
  toCustomerPatch,
  todayUtc,
  type CustomerPatch,
} from './customer-input.model.ts';
import { JsonText } from '../json-text.model.ts';
import type { ChangeInput } from '../changes/change.model.ts';
import type { CustomerJsonRow } from './customer-json.repo.ts';
import { customerSeenBy } from './customer-read.service.ts';
import {
  bumpCustomer,
  bumpCustomerAtOnce,
  bumpShownCustomer,
  emailOwner,
  insertCustomer,
  insertCustomerAtOnce,
  lockCustomer,
  lockShownCustomer,
  readShownCustomer,
  type ShownCustomer,
} from './customer-write.repo.ts';
import { countryCode } from './phone.model.ts';

/** Create, update and delete a customer (SPEC "Behaviour rules" 1-5), as write services. */
export interface CustomerResult {
  /** The customer's JSON text, written by the same statement as a read's (customer-json.repo.ts). */
  record: JsonText;
  version: string;
}

export interface DeletedCustomer {
  id: string;
  object: 'customer';
  deleted: true;
}

const EMAIL_TAKEN = 'Another customer already has this email. Look it up with GET /customers?email= first.';

/** The answer: the customer as the actor may see it, with the version for its ETag, so it is what a GET sends. */
export function answerOf(actor: Actor, row: CustomerJsonRow): CustomerResult {
  return { record: new JsonText(customerSeenBy(actor, row.record), [row.id]), version: String(row.version) };
}

/**
 * A write that changed an existing customer: its answer, and the customer as GET showed it
 * before (read when the write took its row) and after, for its webhook event.
 */
export function changedCustomer(
  actor: Actor,
  before: CustomerJsonRow,
  after: CustomerJsonRow,
  changes: ChangeInput[],
): Written<CustomerResult> {
  return {
    value: answerOf(actor, after),
    records: new Map([[after.id, { before: before.record, after: after.record }]]),
    changes,
  };
}

function pickEditable(row: Pick<CustomerTable, (typeof EDITABLE)[number]>): Record<string, unknown> {
  return Object.fromEntries(EDITABLE.map((c) => [c, row[c]]));
}

async function patchFrom(db: Queryable, actor: Actor, body: UpdateCustomerBody): Promise<CustomerPatch> {
  // DECISIONS "Customers": a phone is read with the workspace's default country, its first venue's.
  const country = body.phone ? countryCode(await firstVenueCountry(db, actor.workspaceId)) : null;
  return toCustomerPatch(body, { today: todayUtc(actor.clock()), defaultCountry: country });
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

/** The row a create inserts, from its body. */
async function newCustomer(db: Queryable, actor: Actor, body: CreateCustomerBody): Promise<CustomerTable> {
  const patch = await patchFrom(db, actor, body);
  const first_name = patch.first_name;
  if (first_name === undefined)
    throw invalid('first_name: is required', [{ field: 'first_name', message: 'is required' }]);
  const now = actor.clock();
  return {
    id: newId('customer'),
    workspace_id: actor.workspaceId,
    livemode: actor.livemode ? 1 : 0,
    ...EMPTY,
    ...patch,
    first_name,
    member: 0,
    member_tier: null,
    version: 1,
    created_by_key_id: actorKeyId(actor),
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
}

const created = (row: CustomerTable): ChangeInput => ({
  at: row.created_at,
  action: 'customer.create',
  customerId: row.id,
  version: 1,
  before: null,
  after: pickEditable(row),
});

export async function createCustomer(tx: Tx, actor: Actor, body: CreateCustomerBody): Promise<Written<CustomerResult>> {
  const row = await newCustomer(tx, actor, body);
  // The email's unique index (one live customer per email in a workspace and mode) is the
  // check: no look-up first, and no race between a look-up and the INSERT.
  const shown = await insertCustomer(tx, actor, row);
  if (!shown) throw conflict(EMAIL_TAKEN);
  return {
    value: answerOf(actor, shown),
    records: new Map([[row.id, { after: shown.record }]]),
    changes: [created(row)],
  };
}

/**
 * createCustomer as one INSERT planned ahead (write.pipeline.ts PlannedWrite), for PostgreSQL
 * to send with its claim and tail as one statement; not for a contacts-masked key, whose
 * stored answer is a masked copy of the record.
 */
export const planCreateCustomer: PlanWrite<CreateCustomerBody, CustomerResult> = async (db, actor, body) => {
  if (actor.contactsMasked) return null;
  const row = await newCustomer(db, actor, body);
  return {
    run: (statementDb, parts) => insertCustomerAtOnce(statementDb, actor, row, parts),
    change: created(row),
    value: (record) => answerOf(actor, { id: row.id, created_at: row.created_at, version: row.version, record }),
  };
};

/** If-Match as the edge parsed it: the versions listed, "*" (any current version) or null (absent). */
export type IfMatch = string[] | '*' | null;

/**
 * SPEC "Behaviour rules" 4: a stale If-Match writes nothing. RFC 9110 evaluates If-Match on
 * every method, so each customer write (update, delete, tags, lists) checks it, on the row
 * it holds locked.
 */
export function requireVersion(ifMatch: IfMatch | undefined, version: number | string): void {
  if (ifMatch === undefined || ifMatch === null || ifMatch === '*' || ifMatch.includes(String(version))) return;
  throw new ApiError(
    'precondition_failed',
    `The customer is at version ${version}; read it again, re-check, then retry.`,
  );
}

export interface UpdateCustomerInput {
  id: string;
  body: UpdateCustomerBody;
  ifMatch: IfMatch;
}

/** The customer an update reads, and the columns it changes (none: it changes nothing). */
interface Update extends ShownCustomer {
  changed: EditableColumn[];
  set: Partial<Pick<CustomerTable, EditableColumn>>;
}

/** The update `input` asks of the customer as `read` finds it, refused where the rules refuse it. */
async function updateOf(
  db: Queryable,
  actor: Actor,
  input: UpdateCustomerInput,
  read: (id: string) => Promise<ShownCustomer | undefined>,
): Promise<Update> {
  const { id, body, ifMatch } = input;
  if (!isIdOf('customer', id)) throw notFound(`No customer ${id.slice(0, 64)}.`);
  const patch = await patchFrom(db, actor, body);
  const held = await read(id);
  if (!held) throw notFound(`No customer ${id}.`);
  const { row } = held;
  requireVersion(ifMatch, row.version);
  // SPEC "Behaviour rules" 3: once set, email and phone cannot change or be cleared here.
  for (const field of ['email', 'phone'] as const) {
    if (patch[field] !== undefined && row[field] !== null && patch[field] !== row[field]) {
      throw conflict(`The customer's ${field} is set and cannot be changed or cleared through this API.`);
    }
  }
  const changed = changedColumns(row, patch);
  if (changed.includes('email') && (await emailOwner(db, actor, patch.email!, row.id))) throw conflict(EMAIL_TAKEN);
  return { ...held, changed, set: Object.fromEntries(changed.map((c) => [c, patch[c]])) };
}

const updated = (update: Update, at: number): ChangeInput => ({
  at,
  action: 'customer.update',
  customerId: update.row.id,
  version: update.row.version + 1,
  before: Object.fromEntries(update.changed.map((c) => [c, update.row[c]])),
  after: update.set,
});

/** A unique index refusing an update: the email it sets is taken since it was looked up. */
async function emailStillFree<R>(write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(EMAIL_TAKEN);
    throw err;
  }
}

export async function updateCustomer(
  tx: Tx,
  actor: Actor,
  input: UpdateCustomerInput,
): Promise<Written<CustomerResult>> {
  const update = await updateOf(tx, actor, input, (id) => lockShownCustomer(tx, actor, id));
  if (update.changed.length === 0) return { value: answerOf(actor, update.shown), changes: [] };
  const now = actor.clock();
  const after = await emailStillFree(() => bumpShownCustomer(tx, actor, update.row, now, update.set));
  return changedCustomer(actor, update.shown, after, [updated(update, now)]);
}

/**
 * updateCustomer planned from a read outside any transaction (write.pipeline.ts PlannedWrite),
 * for PostgreSQL to send with its tail as one statement guarded by the version read.
 */
export const planUpdateCustomer: PlanWrite<UpdateCustomerInput, CustomerResult> = async (db, actor, input) => {
  const update = await updateOf(db, actor, input, (id) => readShownCustomer(db, actor, id));
  // Nothing to write: the transaction's way answers it.
  if (update.changed.length === 0) return null;
  const { row, shown, set } = update;
  const now = actor.clock();
  return {
    run: (statementDb, parts) => emailStillFree(() => bumpCustomerAtOnce(statementDb, actor, row, now, set, parts)),
    change: updated(update, now),
    before: shown.record,
    value: (record) => answerOf(actor, { id: row.id, created_at: row.created_at, version: row.version + 1, record }),
  };
};

/** SPEC "Behaviour rules" 5: the customer goes; bookings, orders and tickets keep its id. */
export async function deleteCustomer(
  tx: Tx,
  actor: Actor,
  input: { id: string; ifMatch?: IfMatch },
): Promise<Written<DeletedCustomer>> {
  const { id } = input;
  if (!isIdOf('customer', id)) throw notFound(`No customer ${id.slice(0, 64)}.`);
  const row = await lockCustomer(tx, actor, id);
  if (!row) throw notFound(`No customer ${id}.`);
  requireVersion(input.ifMatch, row.version);
  const now = actor.clock();
  const updated = await bumpCustomer(tx, row, now, { deleted_at: now });
  return {
    value: { id, object: 'customer', deleted: true },
    changes: [
      {
        at: now,
        action: 'customer.delete',
        customerId: id,
        version: updated.version,
        before: { deleted_at: null },
        after: { deleted_at: now },
      },
    ],
  };
}
