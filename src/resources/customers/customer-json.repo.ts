import type { TObject } from '@sinclair/typebox';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { JsonArray, jsonRecordText, type RecordSource } from '../../db/json-record.ts';
import { type Param, PreparedQuery } from '../../db/prepared.ts';
import type { Queryable } from '../../db/schema.ts';
import type { CursorPosition } from '../../lib/cursor.ts';
import type { Clock } from '../../lib/time.ts';
import type { Scope } from '../actor.model.ts';
import { pageSteps } from '../paging.repo.ts';
import { adultCutoff } from './customer-record.model.ts';
import { Customer } from './customer.schema.ts';

/**
 * Every customer the API reads or a write returns, as JSON the database builds from the
 * Customer schema (db/json-record.ts), unmasked: a contacts-masked reader's copy is masked
 * after it (lib/mask.ts). `adult` needs today (customer-record.model.ts `adultCutoff`).
 */
export interface CustomerJsonRow {
  id: string;
  created_at: number;
  version: number;
  /** The record's JSON text. */
  record: string;
}

/** Who reads: the scope, and today (for `adult`). */
export interface CustomerReader extends Scope {
  clock: Clock;
}

const col = <T = unknown>(name: string) => sql.ref<T>(`customers.${name}`);
const is1 = (name: string) => sql<SqlBool>`${col(name)} = 1`;

/** Where each property of the Customer schema comes from. */
function customerSource(db: Queryable, param: Param<JsonParams>): RecordSource {
  const dateOfBirth = col<string | null>('date_of_birth');
  const tags = new JsonArray({
    rows: (items) =>
      db
        .selectFrom('customer_tags as ct')
        .innerJoin('tags as t', 't.id', 'ct.tag_id')
        .select(sql`${items}`.as('tags'))
        .where(sql<boolean>`${sql.ref('ct.workspace_id')} = ${col('workspace_id')}`)
        .where(sql<boolean>`${sql.ref('ct.customer_id')} = ${col('id')}`),
    item: { id: sql.ref('ct.tag_id'), name: sql.ref('t.name'), added_at: sql.ref('ct.added_at') },
    // Oldest first; an unknown added_at (imported) first on both engines.
    orderBy: [sql`${sql.ref('ct.added_at')} asc nulls first`, sql.ref('ct.tag_id')],
    // The counts are the database's (migration 007): look only where there is something.
    any: sql<SqlBool>`${col('tag_count')} > 0`,
  });
  const lists = new JsonArray({
    rows: (items) =>
      db
        .selectFrom('customer_lists as cl')
        .innerJoin('lists as l', 'l.id', 'cl.list_id')
        .select(sql`${items}`.as('lists'))
        .where(sql<boolean>`${sql.ref('cl.workspace_id')} = ${col('workspace_id')}`)
        .where(sql<boolean>`${sql.ref('cl.customer_id')} = ${col('id')}`),
    item: {
      id: sql.ref('cl.list_id'),
      name: sql.ref('l.name'),
      status: sql.ref('cl.status'),
      added_at: sql.ref('cl.added_at'),
      unsubscribed_at: sql.ref('cl.unsubscribed_at'),
    },
    orderBy: [sql`${sql.ref('cl.added_at')} asc nulls first`, sql.ref('cl.list_id')],
    any: sql<SqlBool>`${col('list_count')} > 0`,
  });
  return {
    id: col('id'),
    first_name: col('first_name'),
    last_name: col('last_name'),
    nickname: col('nickname'),
    email: col('email'),
    phone: col('phone'),
    date_of_birth: dateOfBirth,
    company: col('company'),
    address: {
      line1: col('address_line1'),
      line2: col('address_line2'),
      suburb: col('address_suburb'),
      state: col('address_state'),
      postcode: col('address_postcode'),
      country: col('address_country'),
    },
    // With a date of birth, from it; else as stored, which may be unknown (NULL).
    adult: sql<SqlBool>`case when ${dateOfBirth} is not null then ${dateOfBirth} <= ${param('adultCutoff')}
      else ${is1('adult')} end`,
    marketing_consent: is1('marketing_consent'),
    membership: { member: is1('member'), tier: col('member_tier') },
    tags,
    lists,
    livemode: is1('livemode'),
    created_at: col('created_at'),
    updated_at: col('updated_at'),
    version: sql`cast(${col('version')} as text)`,
  };
}

/**
 * The customer's JSON as `db`'s engine writes it, checked against the Customer schema as it
 * is built (`schema` is there for the test that shows a property without a source refused).
 */
export function customerJson(db: Queryable, param: Param<JsonParams>, schema: TObject = Customer): RawBuilder<string> {
  return jsonRecordText(db, schema, customerSource(db, param));
}

/** Builds it once, so a schema property without a source stops the start, not a request. */
export function checkCustomerJson(db: Queryable): void {
  customerJson(db, ((name: string) => name) as Param<JsonParams>);
}

/** What every customer read binds; a page binds its steps too. */
export interface ReadParams {
  workspaceId: string;
  livemode: number;
  adultCutoff: string;
}

/** What the JSON itself binds: today, for `adult`. */
export type JsonParams = Pick<ReadParams, 'adultCutoff'>;

interface PageParams extends ReadParams {
  email?: string;
  updatedSince: number | null;
  afterCreatedAt?: number;
  afterId?: string;
  take: number;
}

/**
 * What every read of a customer selects (a CustomerJsonRow): the write statements return it
 * too, so a write's answer comes with the statement that made it. Only `adultCutoff` is bound.
 */
export function shownColumns(db: Queryable, param: Param<JsonParams>) {
  return [
    sql.ref<string>('customers.id').as('id'),
    sql.ref<number>('customers.created_at').as('created_at'),
    sql.ref<number>('customers.version').as('version'),
    customerJson(db, param).as('record'),
  ] as const;
}

function live(db: Queryable, param: Param<ReadParams>) {
  return db
    .selectFrom('customers')
    .select(shownColumns(db, param))
    .where('customers.workspace_id', '=', param('workspaceId'))
    .where('customers.livemode', '=', param('livemode'))
    .where('customers.deleted_at', 'is', null);
}

const ONE = new PreparedQuery<ReadParams & { id: string }, CustomerJsonRow>((db, param) =>
  live(db, param).where('customers.id', '=', param('id')),
);

const PAGE = new PreparedQuery<PageParams, CustomerJsonRow>((db, param, shape) => {
  let query = live(db, param);
  const filters = shape.split(',');
  if (filters.includes('email')) query = query.where('customers.email', '=', param('email'));
  const since = filters.includes('updated_since') ? param('updatedSince') : null;
  const after: CursorPosition | null = filters.includes('after')
    ? { createdAt: param('afterCreatedAt'), id: param('afterId') }
    : null;
  return pageSteps(query, 'customers', since, after, param('take'));
});

export function readParams(reader: CustomerReader): ReadParams {
  return {
    workspaceId: reader.workspaceId,
    livemode: reader.livemode ? 1 : 0,
    adultCutoff: adultCutoff(reader.clock()),
  };
}

/**
 * One customer's JSON text, read on `db`: a transaction's handle reads what that transaction
 * wrote (a write's answer, an event's record). Undefined for a deleted customer or one out of
 * scope.
 */
export async function readCustomerJson(
  db: Queryable,
  reader: CustomerReader,
  id: string,
): Promise<CustomerJsonRow | undefined> {
  const [row] = await ONE.execute(db, { ...readParams(reader), id });
  return row;
}

export interface CustomerPageQuery {
  email: string | undefined;
  updatedSince: number | null;
  after: CursorPosition | null;
  /** Rows to fetch: the page's limit and one more, to tell whether there is more. */
  take: number;
}

export async function pageCustomersJson(
  db: Queryable,
  reader: CustomerReader,
  page: CustomerPageQuery,
): Promise<CustomerJsonRow[]> {
  // The page's statement has one shape per set of filters given, each compiled once.
  const filters = [
    page.email !== undefined && 'email',
    page.updatedSince !== null && 'updated_since',
    page.after && 'after',
  ];
  const shape = filters.filter(Boolean).join(',');
  return PAGE.execute(
    db,
    {
      ...readParams(reader),
      email: page.email,
      updatedSince: page.updatedSince,
      afterCreatedAt: page.after?.createdAt,
      afterId: page.after?.id,
      take: page.take,
    },
    shape,
  );
}
