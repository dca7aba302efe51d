import { type Param, PreparedQuery, preparedInsert } from '../../db/prepared.ts';
import { returningPays } from '../../db/statement-costs.ts';
import { lockRows } from '../../db/transaction-lock.ts';
import type { Transaction } from 'kysely';
import type { Database, Queryable } from '../../db/schema.ts';
import type { CustomerTable } from '../../db/tables/customer.ts';
import { StaleWrite } from '../../db/stale-write.ts';
import type { Scope } from '../actor.model.ts';
import {
  customerJson,
  readCustomerJson,
  readParams,
  type CustomerJsonRow,
  type CustomerReader,
  type CustomerView,
  type ReadParams,
} from './customer-json.repo.ts';

/**
 * Writes to customers and their memberships. Every change to a customer, memberships
 * included, goes through `bumpCustomer`: the version moves by exactly one, guarded by the
 * version this transaction read, so a customer's changes have one order (DECISIONS
 * "Customers": version changes on every change) and no write is lost to a race.
 */
export type CustomerSet = Partial<Omit<CustomerTable, 'id' | 'workspace_id' | 'livemode' | 'version' | 'created_at'>>;

/** The customer row whatever its state, without holding it (the undo's dry run). */
export async function findCustomerRow(db: Queryable, scope: Scope, id: string): Promise<CustomerTable | undefined> {
  return db
    .selectFrom('customers')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', scope.workspaceId)
    .where('livemode', '=', scope.livemode ? 1 : 0)
    .executeTakeFirst();
}

/**
 * Reads the customer for a write and holds its row until the transaction ends (lockRows:
 * FOR UPDATE on PostgreSQL, where a concurrent writer of the same customer waits, then
 * reads what this one committed). `deleted: true` finds a deleted customer too (undo
 * restores them).
 */
export async function lockCustomer(
  tx: Transaction<Database>,
  scope: Scope,
  id: string,
  options: { deleted?: boolean } = {},
): Promise<CustomerTable | undefined> {
  let query = tx
    .selectFrom('customers')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', scope.workspaceId)
    .where('livemode', '=', scope.livemode ? 1 : 0);
  if (!options.deleted) query = query.where('deleted_at', 'is', null);
  return lockRows(tx, query).executeTakeFirst();
}

/**
 * Inserts the customer unless a unique index refuses (its email is taken), and answers its
 * JSON as the reader sees it, built by the read statement's own expression (customer-json.repo.ts),
 * so the answer is byte for byte what a GET sends: over the row the INSERT returns where
 * RETURNING pays (one statement, one round trip), else by the GET's statement after the
 * INSERT. Undefined when refused.
 */
export async function insertCustomerJson(
  tx: Transaction<Database>,
  row: CustomerTable,
  reader: CustomerReader,
  view: CustomerView,
): Promise<CustomerJsonRow | undefined> {
  if (!returningPays(tx)) {
    if ((await INSERT(tx, row)) === 0) return undefined;
    return readCustomerJson(tx, reader, row.id, view);
  }
  // The row's columns are the statement's parameters by their own names, with the one value
  // the record's expression binds (customerJson: adultCutoff).
  const params = Object.assign({ adultCutoff: readParams(reader).adultCutoff }, row);
  const shape = `${Object.keys(row).join(',')}|${view.masked ? 'm' : ''}`;
  const [answer] = await INSERT_ANSWERING.execute(tx, params, shape);
  return answer;
}

// SQLite's create: the INSERT, then the GET's own statement (returningPays).
const INSERT = preparedInsert('customers', { doNothingOnConflict: true });

// Every create runs it: compiled once per set of columns and view (db/prepared.ts).
const INSERT_ANSWERING = new PreparedQuery<CustomerTable & { adultCutoff: string }, CustomerJsonRow>(
  (db, param, shape) => {
    const [columns = '', masked] = shape.split('|');
    const values = Object.fromEntries(columns.split(',').map((c) => [c, param(c as keyof CustomerTable)]));
    return db
      .insertInto('customers')
      .values(values as never)
      .onConflict((oc) => oc.doNothing())
      .returning([
        'customers.id',
        'customers.created_at',
        'customers.version',
        customerJson(db, param as unknown as Param<ReadParams>, masked === 'm').as('record'),
      ]);
  },
);

/** Sets `set` and moves the version on by one; throws StaleWrite when the row moved first. */
export async function bumpCustomer(
  tx: Transaction<Database>,
  row: CustomerTable,
  now: number,
  set: CustomerSet = {},
): Promise<CustomerTable> {
  const version = row.version + 1;
  const result = await tx
    .updateTable('customers')
    .set({ ...set, updated_at: now, version })
    .where('id', '=', row.id)
    .where('version', '=', row.version)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new StaleWrite();
  return { ...row, ...set, updated_at: now, version };
}

export async function emailOwner(
  db: Queryable,
  scope: Scope,
  email: string,
  exceptId: string | null = null,
): Promise<string | null> {
  const params = { workspaceId: scope.workspaceId, livemode: scope.livemode ? 1 : 0, email, exceptId };
  const [row] = await EMAIL_OWNER.execute(db, params, exceptId ? 'except' : '');
  return row?.id ?? null;
}

// Every create (and every email change) asks it: compiled once per shape (db/prepared.ts).
type EmailOwnerParams = { workspaceId: string; livemode: number; email: string; exceptId: string | null };
const EMAIL_OWNER = new PreparedQuery<EmailOwnerParams, { id: string }>((db, param, shape) => {
  const query = db
    .selectFrom('customers')
    .select('id')
    .where('workspace_id', '=', param('workspaceId'))
    .where('livemode', '=', param('livemode'))
    .where('email', '=', param('email'))
    .where('deleted_at', 'is', null);
  return shape === 'except' ? query.where('id', '!=', param('exceptId')) : query;
});
