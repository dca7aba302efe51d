import { type Expression, sql, type Transaction } from 'kysely';
import { type Param, PreparedQuery } from '../../db/prepared.ts';
import { lockRows } from '../../db/transaction-lock.ts';
import type { Database, Queryable, Tx } from '../../db/schema.ts';
import type { CustomerTable } from '../../db/tables/customer.ts';
import { StaleWrite } from '../../db/stale-write.ts';
import type { Scope } from '../actor.model.ts';
import {
  type CustomerJsonRow,
  type CustomerReader,
  customerJson,
  type JsonParams,
  type ReadParams,
  readParams,
  shownColumns,
} from './customer-json.repo.ts';
import { EDITABLE, type EditableColumn } from './customer-input.model.ts';
import { adultCutoff } from './customer-record.model.ts';
import {
  type AtOnceFound,
  type AtOnceParts,
  type AtOnceRow,
  atOnceFound,
  atOnceParams,
  atOnceShape,
  atOnceStatement,
} from '../writes/write-at-once.repo.ts';

/**
 * Writes to customers. Every change moves the version by exactly one, guarded by the version
 * the transaction read, so a customer's changes have one order and no write is lost to a race.
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
 * Inserts the customer unless a unique index refuses (its email is taken: undefined), and
 * answers it as a GET shows it, from the same statement (customer-json.repo.ts).
 */
export async function insertCustomer(
  tx: Tx,
  reader: CustomerReader,
  row: CustomerTable,
): Promise<CustomerJsonRow | undefined> {
  const params = { ...row, adultCutoff: adultCutoff(reader.clock()) };
  const [shown] = await INSERT.execute(tx, params, Object.keys(row).join(','));
  return shown;
}

// Every create runs it: compiled once per set of columns (db/prepared.ts), which is always all of them.
const INSERT = new PreparedQuery<CustomerTable & JsonParams, CustomerJsonRow>((db, param, shape) => {
  const values = Object.fromEntries(shape.split(',').map((column) => [column, param(column as keyof CustomerTable)]));
  return db
    .insertInto('customers')
    .values(values as never)
    .onConflict((oc) => oc.doNothing())
    .returning(shownColumns(db, param));
});

/**
 * insertCustomer with the key's claim and the write's tail, as one statement (PostgreSQL,
 * write-at-once.repo.ts): the record only if the key was free and the email too.
 */
export async function insertCustomerAtOnce(
  db: Queryable,
  reader: CustomerReader,
  row: CustomerTable,
  parts: AtOnceParts,
): Promise<AtOnceFound> {
  const own = Object.fromEntries(Object.entries(row).map(([column, value]) => [`i.${column}`, value]));
  const params = atOnceParams(parts, { ...own, adultCutoff: adultCutoff(reader.clock()) });
  const [found] = await INSERT_AT_ONCE.execute(db, params, `${Object.keys(row).join(',')}|${atOnceShape(parts)}`);
  return atOnceFound(found);
}

const INSERT_AT_ONCE = new PreparedQuery<Record<string, unknown>, AtOnceRow>((db, param, shape) => {
  const [columns, tail] = splitShape(shape);
  const names = columns.split(',');
  const values = names.map((column) => param(`i.${column}`) as Expression<unknown>);
  return atOnceStatement(db, param, tail, (free) =>
    db
      .insertInto('customers')
      .columns(names as (keyof CustomerTable)[])
      .expression(sql`select ${sql.join(values)} where ${free}`)
      .onConflict((oc) => oc.doNothing())
      .returning(customerJson(db, param as Param<JsonParams>).as('record')),
  );
});

/** A statement's shape: its own, then after the first `|` its tail's (atOnceShape). */
function splitShape(shape: string): [own: string, tail: string] {
  const at = shape.indexOf('|');
  return [shape.slice(0, at), shape.slice(at + 1)];
}

/** A customer's row, and its JSON as a GET shows it: what its webhook event's `previous_attributes` are taken from. */
export interface ShownCustomer {
  row: CustomerTable;
  shown: CustomerJsonRow;
}

/** Reads the customer for a write, holding its row as lockCustomer does, with its JSON. */
export const lockShownCustomer = (tx: Tx, reader: CustomerReader, id: string) => readShown(tx, reader, id, 'lock');

/** The same read without holding the row: for a write guarded by the version it read (bumpCustomerAtOnce). */
export const readShownCustomer = (db: Queryable, reader: CustomerReader, id: string) => readShown(db, reader, id, '');

async function readShown(
  db: Queryable,
  reader: CustomerReader,
  id: string,
  shape: 'lock' | '',
): Promise<ShownCustomer | undefined> {
  const [found] = await READ_SHOWN.execute(db, { ...readParams(reader), id }, shape);
  if (!found) return undefined;
  const { record, ...row } = found;
  return { row, shown: { id: row.id, created_at: row.created_at, version: row.version, record } };
}

const READ_SHOWN = new PreparedQuery<ReadParams & { id: string }, CustomerTable & { record: string }>(
  (db, param, shape) => {
    const query = db
      .selectFrom('customers')
      .selectAll('customers')
      .select(customerJson(db, param).as('record'))
      .where('id', '=', param('id'))
      .where('workspace_id', '=', param('workspaceId'))
      .where('livemode', '=', param('livemode'))
      .where('deleted_at', 'is', null);
    return shape === 'lock' ? lockRows(db, query) : query;
  },
);

/**
 * bumpCustomer for a write that answers with the customer: every editable column is set
 * (from `row` where `set` leaves it), so the statement has two shapes, and it returns the
 * customer as a GET shows it after the change. Throws StaleWrite when the row moved first.
 * The email is set only when it changes: SQLite rewrites an index entry for every indexed
 * column an UPDATE sets, changed or not, and the email is the one editable column indexed.
 */
export async function bumpShownCustomer(
  tx: Tx,
  reader: CustomerReader,
  row: CustomerTable,
  now: number,
  set: Partial<Pick<CustomerTable, EditableColumn>> = {},
): Promise<CustomerJsonRow> {
  const params = bumpParams(reader, row, now, set);
  const [shown] = await BUMP_SHOWN.execute(tx, params, set.email === undefined ? '' : 'email');
  if (!shown) throw new StaleWrite();
  return shown;
}

/**
 * bumpShownCustomer with the write's tail, as one statement (PostgreSQL, write-at-once.repo.ts),
 * guarded by the version `row` was read at: no record when the row moved since.
 */
export async function bumpCustomerAtOnce(
  db: Queryable,
  reader: CustomerReader,
  row: CustomerTable,
  now: number,
  set: Partial<Pick<CustomerTable, EditableColumn>>,
  parts: AtOnceParts,
): Promise<AtOnceFound> {
  const params = atOnceParams(parts, bumpParams(reader, row, now, set));
  const [found] = await BUMP_AT_ONCE.execute(
    db,
    params,
    `${set.email === undefined ? '' : 'email'}|${atOnceShape(parts)}`,
  );
  return atOnceFound(found);
}

type BumpParams = Pick<CustomerTable, EditableColumn | 'id' | 'version'> & JsonParams & { updatedAt: number };

function bumpParams(
  reader: CustomerReader,
  row: CustomerTable,
  now: number,
  set: Partial<Pick<CustomerTable, EditableColumn>>,
): BumpParams {
  const columns = Object.fromEntries(EDITABLE.map((c) => [c, set[c] === undefined ? row[c] : set[c]]));
  return {
    ...(columns as Pick<CustomerTable, EditableColumn>),
    id: row.id,
    version: row.version,
    updatedAt: now,
    adultCutoff: adultCutoff(reader.clock()),
  };
}

function bump(db: Queryable, param: Param<BumpParams>, setsEmail: boolean) {
  return db
    .updateTable('customers')
    .set({
      ...Object.fromEntries(EDITABLE.filter((c) => c !== 'email' || setsEmail).map((c) => [c, param(c)])),
      updated_at: param('updatedAt'),
      version: sql<number>`${sql.ref('version')} + 1`,
    })
    .where('id', '=', param('id'))
    .where('version', '=', param('version'));
}

const BUMP_SHOWN = new PreparedQuery<BumpParams, CustomerJsonRow>((db, param, shape) =>
  bump(db, param, shape === 'email').returning(shownColumns(db, param)),
);

const BUMP_AT_ONCE = new PreparedQuery<Record<string, unknown>, AtOnceRow>((db, param, shape) => {
  const [email, tail] = splitShape(shape);
  const own = param as Param<BumpParams>;
  return atOnceStatement(db, param, tail, () =>
    bump(db, own, email === 'email').returning(customerJson(db, own).as('record')),
  );
});

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
