import type { TObject, TSchema } from '@sinclair/typebox';
import { PostgresAdapter, sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { jsonBuildObject as sqliteObject } from 'kysely/helpers/sqlite';
import { jsonObjectFrom as postgresObjectFrom } from 'kysely/helpers/postgres';
import type { Queryable } from './schema.ts';

/**
 * A record's JSON built by the database from the record's TypeBox schema, so the schema that
 * validates, serialises and documents a record is also what a read sends: its properties in
 * the schema's order, instants (`format: date-time`) written as toISOString writes them,
 * booleans as JSON booleans, nested objects and arrays of objects. The caller says where each
 * property's value comes from, shaped like the schema; a property without a source, or a
 * source without a property, is refused when the statement is built (and by a test).
 *
 * The answer is the JSON text itself on both engines, byte for byte what JSON.stringify
 * makes of the record: nothing parses it and nothing stringifies it again.
 */

/** Where a record's properties come from: an SQL value, a nested record, or an array. */
export interface RecordSource {
  readonly [property: string]: FieldSource;
}

/**
 * A leaf's source is the SQL value as stored: the text or number; for a boolean, a condition;
 * for an instant, epoch milliseconds. A nullable leaf's NULL is JSON null.
 */
export type FieldSource = Expression<unknown> | RecordSource | JsonArray;

export interface JsonArraySpec {
  /**
   * The rows, selecting `items` (an aggregate, so one row): a query joined to the outer
   * row by its where clause.
   */
  rows: (items: Expression<unknown>) => Expression<unknown>;
  /** Each item's source, from the columns of `rows`. */
  item: RecordSource;
  /** The items' order: a total one, so both engines agree. */
  orderBy: readonly Expression<unknown>[];
  /** Whether there can be any: when false, `[]` without running `rows` (a count kept on the row). */
  any?: Expression<SqlBool>;
}

/** An array of records, one per row of a correlated query. */
export class JsonArray {
  constructor(readonly spec: JsonArraySpec) {}
}

export type JsonDialect = 'sqlite' | 'postgres';

export function jsonDialectOf(db: Queryable): JsonDialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** How each engine spells the few JSON constructions a record needs. */
interface Spelling {
  object(db: Queryable, pairs: readonly (readonly [string, Expression<unknown>])[]): Expression<unknown>;
  bool(condition: Expression<unknown>, nullable: boolean): Expression<unknown>;
  instant(ms: Expression<unknown>): Expression<unknown>;
  /** An aggregate: the group's values as a JSON array in that order, `[]` for none. */
  array(value: Expression<unknown>, orderBy: readonly Expression<unknown>[]): Expression<unknown>;
  empty(): Expression<unknown>;
  /** The whole record as text. */
  text(record: Expression<unknown>): RawBuilder<string>;
}

/**
 * SQLite's JSON1: json_object keeps its arguments' order, and a value made by json_object,
 * json_group_array or json() nests as JSON, not as a string. A comparison is 1, 0 or NULL.
 * strftime's %f counts whole milliseconds (julian-day milliseconds are integers), as
 * toISOString does.
 */
const SQLITE: Spelling = {
  object: (_db, pairs) => sqliteObject(Object.fromEntries(pairs)),
  bool: (condition, nullable) =>
    nullable
      ? sql`json(case ${condition} when 1 then 'true' when 0 then 'false' end)`
      : sql`json(case when ${condition} then 'true' else 'false' end)`,
  instant: (ms) => sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${ms} / 1000.0, 'unixepoch')`,
  array: (value, orderBy) => sql`json_group_array(${value} order by ${sql.join(orderBy)})`,
  empty: () => sql`json('[]')`,
  text: (record) => sql<string>`${record}`,
};

/**
 * PostgreSQL: json_build_object and json_agg write `"k" : v` and `, ` between members, and
 * jsonb reorders keys; to_json of a row writes JSON.stringify's compact form, keys in column
 * order (Kysely's jsonObjectFrom), and an array is its items' text joined by commas. A json
 * value nests as it is. to_timestamp keeps microseconds, so milliseconds come through exactly.
 */
const POSTGRES: Spelling = {
  object: (db, pairs) => postgresObjectFrom(db.selectNoFrom(pairs.map(([key, value]) => sql`${value}`.as(key)))),
  bool: (condition) => sql`(${condition})`,
  instant: (ms) => sql`to_char(to_timestamp(${ms} / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  array: (value, orderBy) =>
    sql`('[' || coalesce(string_agg((${value})::text, ',' order by ${sql.join(orderBy)}), '') || ']')::json`,
  empty: () => sql`'[]'::json`,
  text: (record) => sql<string>`(${record})::text`,
};

const SPELLINGS: Record<JsonDialect, Spelling> = { sqlite: SQLITE, postgres: POSTGRES };

/** The record's JSON text, built by `db`'s engine from `schema` and `source`. */
export function jsonRecordText(db: Queryable, schema: TObject, source: RecordSource): RawBuilder<string> {
  const spelling = SPELLINGS[jsonDialectOf(db)];
  return spelling.text(objectOf(spelling, db, schema, source, '$'));
}

/**
 * Refuses a source that does not produce exactly the schema's properties; the builder calls
 * it on every object it writes, and tests call it on its own.
 */
export function checkRecordSource(schema: TObject, source: RecordSource, path = '$'): void {
  const properties = Object.keys(schema.properties);
  const missing = properties.filter((p) => !(p in source) && constOf(schema.properties[p]!) === undefined);
  const unknown = Object.keys(source).filter((p) => !(p in schema.properties));
  if (missing.length > 0 || unknown.length > 0) {
    const parts = [
      missing.length > 0 ? `no source for ${missing.join(', ')}` : '',
      unknown.length > 0 ? `no schema property for ${unknown.join(', ')}` : '',
    ];
    throw new Error(`The JSON of ${path} does not match its schema: ${parts.filter(Boolean).join('; ')}.`);
  }
}

function objectOf(
  spelling: Spelling,
  db: Queryable,
  schema: TObject,
  source: RecordSource,
  path: string,
): Expression<unknown> {
  checkRecordSource(schema, source, path);
  const pairs = Object.entries(schema.properties).map(
    ([name, property]) =>
      [name, propertyValue(spelling, db, property, source[name], `${path}.${name}`)] as [string, Expression<unknown>],
  );
  return spelling.object(db, pairs);
}

function propertyValue(
  spelling: Spelling,
  db: Queryable,
  schema: TSchema,
  source: FieldSource | undefined,
  path: string,
): Expression<unknown> {
  const literal = constOf(schema);
  if (source === undefined) {
    // Only a literal may go without a source (checkRecordSource): its value is the schema's.
    if (typeof literal !== 'string') throw new Error(`${path}: only a string literal is written from the schema`);
    return sql.lit(literal);
  }
  const { type, nullable } = typeOf(schema, path);
  if (type === 'object') {
    if (nullable || !isRecordSource(source)) throw new Error(`${path}: an object needs a record source`);
    return objectOf(spelling, db, schema as TObject, source, path);
  }
  if (type === 'array') {
    const items = (schema as { items?: TSchema }).items;
    if (nullable || !(source instanceof JsonArray) || !items || typeOf(items, path).type !== 'object') {
      throw new Error(`${path}: an array needs a JsonArray source and object items`);
    }
    const { rows, item, orderBy, any } = source.spec;
    const list = rows(spelling.array(objectOf(spelling, db, items as TObject, item, `${path}[]`), orderBy));
    return any ? sql`case when ${any} then ${list} else ${spelling.empty()} end` : list;
  }
  if (!isExpression(source)) throw new Error(`${path}: a ${type} needs an SQL value`);
  if (type === 'boolean') return spelling.bool(source, nullable);
  if (type === 'string' && (schema as { format?: string }).format === 'date-time') return spelling.instant(source);
  return source;
}

function constOf(schema: TSchema): unknown {
  return (schema as { const?: unknown }).const;
}

/** The JSON type of a schema and whether it may be null: `type: [t, 'null']` or `anyOf: [s, null]`. */
function typeOf(schema: TSchema, path: string): { type: string; nullable: boolean } {
  const s = schema as { type?: string | string[]; anyOf?: TSchema[] };
  if (typeof s.type === 'string') return { type: s.type, nullable: false };
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t) => t !== 'null');
    if (types.length === 1) return { type: types[0]!, nullable: s.type.includes('null') };
  }
  if (s.anyOf) {
    const others = s.anyOf.filter((member) => (member as { type?: unknown }).type !== 'null');
    if (others.length === 1) return { type: typeOf(others[0]!, path).type, nullable: others.length < s.anyOf.length };
  }
  throw new Error(`${path}: the schema has no single JSON type`);
}

function isExpression(source: FieldSource): source is Expression<unknown> {
  return typeof (source as { toOperationNode?: unknown }).toOperationNode === 'function';
}

function isRecordSource(source: FieldSource): source is RecordSource {
  return !(source instanceof JsonArray) && !isExpression(source);
}

/**
 * The top-level members of the JSON object `before` whose value is another text in `after`,
 * but those named in `skip`, as a JSON object's text in `before`'s order (`{}` for none).
 * Both texts come from jsonRecordText, so one value is always one text. PostgreSQL's json
 * keeps a member's text as written; SQLite's `->` writes it again, as json_object wrote it.
 */
export function changedMembers(
  db: Queryable,
  before: Expression<string>,
  after: Expression<string>,
  skip: readonly string[],
): RawBuilder<string> {
  const skipped = sql.join(skip.map((key) => sql.lit(key)));
  if (jsonDialectOf(db) === 'postgres') {
    return sql<string>`(select '{' || coalesce(string_agg(to_json(b.key)::text || ':' || b.value::text, ',' order by b.n), '') || '}'
      from json_each((${before})::json) with ordinality as b(key, value, n)
      left join json_each((${after})::json) as a(key, value) on a.key = b.key
      where b.key not in (${skipped}) and a.value::text is distinct from b.value::text)`;
  }
  return sql<string>`(select '{' || coalesce(group_concat(json_quote(b.key) || ':' || (${before} -> b.key), ',' order by b.id), '') || '}'
    from json_each(${before}) as b
    where b.key not in (${skipped}) and (${before} -> b.key) is not (${after} -> b.key))`;
}
