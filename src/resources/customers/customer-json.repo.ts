import { sql, type Expression } from 'kysely';
import type { JsonSql } from '../../db/dialects/types.ts';
import { type Param, PreparedQuery } from '../../db/prepared.ts';
import type { Queryable } from '../../db/schema.ts';
import type { CursorPosition } from '../../lib/cursor.ts';
import type { Scope } from '../actor.model.ts';
import { pageSteps } from '../paging.repo.ts';

/**
 * The customer reads of the API, answered as JSON the database builds: one statement per
 * read, one string per customer, byte for byte what toCustomer and the response schema make
 * (test/customers/customer-json.test.ts holds them to it). Mapping 27 columns into an
 * object and serialising it again was most of a read's CPU.
 *
 * `adult` needs today: a customer with a date of birth is an adult when that date is on or
 * before `adultCutoff` (customer-record.model.ts).
 */
export interface CustomerJsonRow {
  id: string;
  created_at: number;
  version: number;
  /** The record's JSON text (PostgreSQL's driver hands it over parsed; see recordText). */
  record: string;
}

/** Where the reads run, and how that engine spells JSON. */
export interface JsonReader {
  db: Queryable;
  json: JsonSql;
}

const col = <T = unknown>(name: string) => sql.ref<T>(`customers.${name}`);

function customerRecord(json: JsonSql, db: Queryable, param: Param<ReadParams>): Expression<unknown> {
  const tags = db
    .selectFrom('customer_tags as ct')
    .innerJoin('tags as t', 't.id', 'ct.tag_id')
    .select(
      json
        .arrayAgg(
          json.object([
            ['id', sql.ref('ct.tag_id')],
            ['name', sql.ref('t.name')],
            ['added_at', json.instant(sql.ref('ct.added_at'))],
          ]),
          // Oldest first; an unknown added_at (imported) first on both engines.
          [sql`${sql.ref('ct.added_at')} asc nulls first`, sql.ref('ct.tag_id')],
        )
        .as('tags'),
    )
    .where(sql<boolean>`${sql.ref('ct.workspace_id')} = ${col('workspace_id')}`)
    .where(sql<boolean>`${sql.ref('ct.customer_id')} = ${col('id')}`);
  const lists = db
    .selectFrom('customer_lists as cl')
    .innerJoin('lists as l', 'l.id', 'cl.list_id')
    .select(
      json
        .arrayAgg(
          json.object([
            ['id', sql.ref('cl.list_id')],
            ['name', sql.ref('l.name')],
            ['status', sql.ref('cl.status')],
            ['added_at', json.instant(sql.ref('cl.added_at'))],
            ['unsubscribed_at', json.instant(sql.ref('cl.unsubscribed_at'))],
          ]),
          [sql`${sql.ref('cl.added_at')} asc nulls first`, sql.ref('cl.list_id')],
        )
        .as('lists'),
    )
    .where(sql<boolean>`${sql.ref('cl.workspace_id')} = ${col('workspace_id')}`)
    .where(sql<boolean>`${sql.ref('cl.customer_id')} = ${col('id')}`);
  const dateOfBirth = col('date_of_birth');
  return json.object([
    ['id', col('id')],
    ['object', sql.lit('customer')],
    ['first_name', col('first_name')],
    ['last_name', col('last_name')],
    ['nickname', col('nickname')],
    ['email', col('email')],
    ['phone', col('phone')],
    ['date_of_birth', dateOfBirth],
    ['company', col('company')],
    [
      'address',
      json.object([
        ['line1', col('address_line1')],
        ['line2', col('address_line2')],
        ['suburb', col('address_suburb')],
        ['state', col('address_state')],
        ['postcode', col('address_postcode')],
        ['country', col('address_country')],
      ]),
    ],
    [
      'adult',
      sql`case when ${dateOfBirth} is not null then ${json.bool(sql`${dateOfBirth} <= ${param('adultCutoff')}`)}
        when ${col('adult')} is null then null else ${json.bool(sql`${col('adult')} = 1`)} end`,
    ],
    ['marketing_consent', json.bool(sql`${col('marketing_consent')} = 1`)],
    [
      'membership',
      json.object([
        ['member', json.bool(sql`${col('member')} = 1`)],
        ['tier', col('member_tier')],
      ]),
    ],
    // The counts are the database's (migration 007): look only where there is something.
    ['tags', sql`case when ${col('tag_count')} > 0 then ${tags} else ${json.emptyArray()} end`],
    ['lists', sql`case when ${col('list_count')} > 0 then ${lists} else ${json.emptyArray()} end`],
    ['livemode', json.bool(sql`${col('livemode')} = 1`)],
    ['created_at', json.instant(col<number>('created_at'))],
    ['updated_at', json.instant(col<number>('updated_at'))],
    ['version', sql`cast(${col('version')} as text)`],
  ]);
}

/** What every customer read binds; a page binds its steps too. */
interface ReadParams {
  workspaceId: string;
  livemode: number;
  adultCutoff: string;
}

interface PageParams extends ReadParams {
  email?: string;
  updatedSince: number | null;
  afterCreatedAt?: number;
  afterId?: string;
  take: number;
}

function live(db: Queryable, json: JsonSql, param: Param<ReadParams>) {
  return db
    .selectFrom('customers')
    .select([
      'customers.id',
      'customers.created_at',
      'customers.version',
      sql<string>`${customerRecord(json, db, param)}`.as('record'),
    ])
    .where('customers.workspace_id', '=', param('workspaceId'))
    .where('customers.livemode', '=', param('livemode'))
    .where('customers.deleted_at', 'is', null);
}

/** The JSON column as text: SQLite answers text, PostgreSQL's driver parses json into a value. */
function recordText(row: CustomerJsonRow): CustomerJsonRow {
  if (typeof row.record !== 'string') row.record = JSON.stringify(row.record);
  return row;
}

// One per process: the compiled statements are kept per database inside.
const readers = new WeakMap<
  JsonSql,
  {
    one: PreparedQuery<ReadParams & { id: string }, CustomerJsonRow>;
    page: PreparedQuery<PageParams, CustomerJsonRow>;
  }
>();

function queries(json: JsonSql) {
  let q = readers.get(json);
  if (!q) {
    q = {
      one: new PreparedQuery((db, param) => live(db, json, param).where('customers.id', '=', param('id'))),
      page: new PreparedQuery((db, param, shape) => {
        let query = live(db, json, param);
        if (shape.includes('e')) query = query.where('customers.email', '=', param('email'));
        const since = shape.includes('u') ? param('updatedSince') : null;
        const after: CursorPosition | null = shape.includes('a')
          ? { createdAt: param('afterCreatedAt'), id: param('afterId') }
          : null;
        return pageSteps(query, 'customers', since, after, param('take'));
      }),
    };
    readers.set(json, q);
  }
  return q;
}

export async function findCustomerJson(
  reader: JsonReader,
  scope: Scope,
  id: string,
  adultCutoff: string,
): Promise<CustomerJsonRow | undefined> {
  const [row] = await queries(reader.json).one.execute(reader.db, {
    workspaceId: scope.workspaceId,
    livemode: scope.livemode ? 1 : 0,
    id,
    adultCutoff,
  });
  return row && recordText(row);
}

export interface CustomerPageQuery {
  email: string | undefined;
  updatedSince: number | null;
  after: CursorPosition | null;
  /** Rows to fetch: the page's limit and one more, to tell whether there is more. */
  take: number;
}

export async function pageCustomersJson(
  reader: JsonReader,
  scope: Scope,
  page: CustomerPageQuery,
  adultCutoff: string,
): Promise<CustomerJsonRow[]> {
  const shape = `${page.email !== undefined ? 'e' : ''}${page.updatedSince !== null ? 'u' : ''}${page.after ? 'a' : ''}`;
  const rows = await queries(reader.json).page.execute(
    reader.db,
    {
      workspaceId: scope.workspaceId,
      livemode: scope.livemode ? 1 : 0,
      adultCutoff,
      email: page.email,
      updatedSince: page.updatedSince,
      afterCreatedAt: page.after?.createdAt,
      afterId: page.after?.id,
      take: page.take,
    },
    shape,
  );
  return rows.map(recordText);
}
