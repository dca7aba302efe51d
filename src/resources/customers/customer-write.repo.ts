import { PreparedQuery, preparedInsert } from '../../db/prepared.ts';
import { lockRows } from '../../db/transaction-lock.ts';
import type { Transaction } from 'kysely';
import type { Database, Queryable } from '../../db/schema.ts';
import type { CustomerTable } from '../../db/tables/customer.ts';
import { StaleWrite } from '../../db/stale-write.ts';
import type { Scope } from '../actor.model.ts';

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
 * Inserts the customer unless a unique index refuses (its email is taken): false when
 * refused. The answer is the customer read back by the GET's statement (customer-json.repo.ts).
 */
export async function insertCustomer(tx: Transaction<Database>, row: CustomerTable): Promise<boolean> {
  return (await INSERT(tx, row)) > 0;
}

// Every create runs it: compiled once per set of columns (db/prepared.ts).
const INSERT = preparedInsert('customers', { doNothingOnConflict: true });

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
