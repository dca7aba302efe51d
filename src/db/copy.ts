import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Storage } from './index.ts';
import type { Queryable } from './schema.ts';

/**
 * `venue-api copy`: every row of every table from one database into an empty one, SQLite or
 * PostgreSQL either way (docs/operations.md "Moving to PostgreSQL"). The tables are read
 * from the schema itself, so a table a later migration adds is copied without anyone
 * remembering to; only the tables in NOT_COPIED stay behind, each for a reason.
 */

/** The tables the copy leaves out, and why. Everything else in the schema is copied. */
export const NOT_COPIED: Readonly<Record<string, string>> = {
  kysely_migration: "the target's own migrations write it as they run, before the copy",
  kysely_migration_lock: "the migrator's lock row, written by the target's own migrations",
};

/** SQLite's own tables (sqlite_stat1, sqlite_sequence): the planner's statistics are refreshed after the copy. */
const isEngineTable = (name: string) => name.startsWith('sqlite_');

/**
 * The column types of the schema, which carry between engines unchanged: integers (booleans
 * are 0/1, instants milliseconds) come back as numbers from both drivers and text as text
 * (JSON columns are text on both). A column of any other type stops the copy before it
 * writes, rather than risk a value that means something else on the other side.
 */
const CARRIED_TYPES = new Set(['text', 'integer', 'bigint']);

/**
 * Columns the database derives with triggers (migration 007-membership-counts): the copy
 * writes the source's values, and checks their sums as well as the row counts, since a
 * trigger counting a copied row a second time leaves the row count right.
 */
const DERIVED_SUMS: Readonly<Record<string, readonly string[]>> = { customers: ['tag_count', 'list_count'] };

/**
 * The membership-count triggers add one to the customer of each membership inserted. The
 * customers are copied after their memberships, so those triggers find no customer to count
 * on either engine, and each customer arrives with the counts the source holds. No trigger
 * is dropped or disabled, which on PostgreSQL would take a superuser
 * (`session_replication_role`) or the tables' owner, and on SQLite a schema change.
 */
const COPY_LAST = ['customers'];

/** Rows read a batch (keyset), so a database of any size streams through bounded memory. */
const DEFAULT_BATCH_ROWS = 2_000;

export interface TableShape {
  name: string;
  columns: { name: string; type: string }[];
  /** The primary key's columns, in order: the keyset the batches walk. */
  key: string[];
}

export interface CopyReport {
  /** Rows copied per table, each equal to the source's and the target's count. */
  tables: Record<string, number>;
}

export interface CopyOptions {
  batchRows?: number;
  /** After each batch: rows copied so far of all tables, and how many there are. */
  onProgress?: (done: number, total: number, table: string) => void;
}

/** The copy will not run: nothing was written. */
export class CopyRefused extends Error {}

type Row = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: tables are named at run time, from the schema
type AnyDb = Kysely<any>;

/** Every table of the database and its columns, as the engine's catalogue describes them. */
export async function describeTables(storage: Storage): Promise<TableShape[]> {
  const db = storage.db;
  const rows =
    storage.engine.name === 'postgres'
      ? (
          await sql<{ table_name: string; column_name: string; data_type: string; key_position: number | null }>`
          select c.table_name, c.column_name, c.data_type, k.ordinal_position as key_position
          from information_schema.columns c
          left join information_schema.table_constraints t
            on t.table_schema = c.table_schema and t.table_name = c.table_name and t.constraint_type = 'PRIMARY KEY'
          left join information_schema.key_column_usage k
            on k.constraint_schema = t.constraint_schema and k.constraint_name = t.constraint_name
           and k.table_name = c.table_name and k.column_name = c.column_name
          where c.table_schema = current_schema()
          order by c.table_name, c.ordinal_position`.execute(db)
        ).rows
      : (
          await sql<{ table_name: string; column_name: string; data_type: string; key_position: number }>`
          select m.name as table_name, p.name as column_name, lower(p.type) as data_type, p.pk as key_position
          from sqlite_master m, pragma_table_info(m.name) p
          where m.type = 'table'
          order by m.name, p.cid`.execute(db)
        ).rows;
  const tables = new Map<string, TableShape & { keyAt: Map<string, number> }>();
  for (const r of rows) {
    if (isEngineTable(r.table_name)) continue;
    const t: TableShape & { keyAt: Map<string, number> } = tables.get(r.table_name) ?? {
      name: r.table_name,
      columns: [],
      key: [],
      keyAt: new Map(),
    };
    tables.set(r.table_name, t);
    t.columns.push({ name: r.column_name, type: r.data_type });
    if (r.key_position) t.keyAt.set(r.column_name, Number(r.key_position));
  }
  return [...tables.values()]
    .map(({ keyAt, ...t }) => ({ ...t, key: [...keyAt].sort((a, b) => a[1] - b[1]).map(([c]) => c) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The tables to copy, in the order they are copied. */
export function tablesToCopy(tables: TableShape[]): TableShape[] {
  const copied = tables.filter((t) => !(t.name in NOT_COPIED));
  const rank = (t: TableShape) => COPY_LAST.indexOf(t.name);
  return [
    ...copied.filter((t) => rank(t) < 0),
    ...copied.filter((t) => rank(t) >= 0).sort((a, b) => rank(a) - rank(b)),
  ];
}

async function migrationsOf(db: Queryable): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((r) => r.name);
}

function sameShape(a: TableShape, b: TableShape | undefined): boolean {
  if (!b) return false;
  const cols = (t: TableShape) => t.columns.map((c) => c.name).sort();
  return JSON.stringify(cols(a)) === JSON.stringify(cols(b));
}

/** Checks that the copy can run, before it writes anything; answers the tables to copy. */
async function plan(source: Storage, target: Storage): Promise<TableShape[]> {
  const [fromMigrations, toMigrations] = [await migrationsOf(source.db), await migrationsOf(target.db)];
  if (fromMigrations.join() !== toMigrations.join()) {
    throw new CopyRefused(
      `the source's schema (migrations up to ${fromMigrations.at(-1) ?? 'none'}) is not this version's ` +
        `(up to ${toMigrations.at(-1)}): bring it up to date with this version first (venue-api migrate)`,
    );
  }
  const tables = tablesToCopy(await describeTables(source));
  const targetTables = new Map((await describeTables(target)).map((t) => [t.name, t]));
  for (const t of tables) {
    if (!sameShape(t, targetTables.get(t.name))) {
      throw new CopyRefused(`table ${t.name} has other columns in the target than in the source`);
    }
    if (t.key.length === 0) throw new CopyRefused(`table ${t.name} has no primary key to copy it in batches by`);
    const odd = t.columns.find((c) => !CARRIED_TYPES.has(c.type));
    if (odd)
      throw new CopyRefused(`column ${t.name}.${odd.name} is of type ${odd.type}, which the copy does not carry`);
  }
  const holding: string[] = [];
  for (const t of tables) if ((await countRows(target.db, t.name)) > 0) holding.push(t.name);
  if (holding.length > 0) {
    throw new CopyRefused(`the target already holds data (in ${holding.join(', ')}): copy into an empty database only`);
  }
  return tables;
}

async function countRows(db: Queryable, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(rows[0]!.n);
}

async function sums(db: Queryable, table: string): Promise<number[]> {
  const columns = DERIVED_SUMS[table] ?? [];
  if (columns.length === 0) return [];
  const { rows } = await sql<Row>`select ${sql.join(
    columns.map((c, i) => sql`coalesce(sum(${sql.ref(c)}), 0) as ${sql.ref(`s${i}`)}`),
  )} from ${sql.table(table)}`.execute(db);
  return columns.map((_, i) => Number(rows[0]![`s${i}`]));
}

/**
 * Reads in one snapshot of the source, so a copy taken while a server still writes is the
 * database as it was at one instant (foreign ids all resolve, counts agree). A read
 * transaction on one pinned connection: SQLite's deferred BEGIN blocks no writer in WAL
 * mode; PostgreSQL's REPEATABLE READ READ ONLY sees one snapshot throughout.
 */
async function inSnapshot<T>(source: Storage, fn: (db: Queryable) => Promise<T>): Promise<T> {
  const begin =
    source.engine.name === 'postgres' ? sql`begin isolation level repeatable read read only` : sql`begin deferred`;
  return source.db.connection().execute(async (conn) => {
    await begin.execute(conn);
    try {
      const value = await fn(conn);
      await sql`commit`.execute(conn);
      return value;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
}

/** One batch of rows after `after` (the last batch's key), in key order. */
async function readBatch(db: Queryable, t: TableShape, after: Row | null, limit: number): Promise<Row[]> {
  const refs = (names: string[]) => sql.join(names.map((c) => sql.ref(c)));
  const where: RawBuilder<unknown> = after
    ? sql`where (${refs(t.key)}) > (${sql.join(t.key.map((c) => after[c]))})`
    : sql``;
  const { rows } = await sql<Row>`select ${refs(t.columns.map((c) => c.name))} from ${sql.table(t.name)}
    ${where} order by ${refs(t.key)} limit ${limit}`.execute(db);
  return rows;
}

/**
 * Copies every table of `source` into `target`, which must be migrated to the same version
 * and empty. The whole copy is one transaction on the target, so a copy that fails leaves it
 * empty (and a second try is not refused); the row counts and derived sums are compared
 * inside it, before it commits.
 */
export async function copyDatabase(source: Storage, target: Storage, options: CopyOptions = {}): Promise<CopyReport> {
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const tables = await plan(source, target);
  const report: CopyReport = { tables: {} };
  await inSnapshot(source, async (src) => {
    const expected = new Map<string, number>();
    for (const t of tables) expected.set(t.name, await countRows(src, t.name));
    const total = [...expected.values()].reduce((a, b) => a + b, 0);
    let done = 0;
    options.onProgress?.(done, total, tables[0]?.name ?? '');
    await target.write(async (tx) => {
      const out = tx as unknown as AnyDb;
      for (const t of tables) {
        const perInsert = target.engine.maxInsertRows(t.columns.length);
        let copied = 0;
        let after: Row | null = null;
        for (;;) {
          const rows = await readBatch(src, t, after, batchRows);
          for (let i = 0; i < rows.length; i += perInsert) {
            await out
              .insertInto(t.name)
              .values(rows.slice(i, i + perInsert))
              .execute();
          }
          copied += rows.length;
          done += rows.length;
          options.onProgress?.(done, total, t.name);
          if (rows.length < batchRows) break;
          after = rows.at(-1)!;
        }
        report.tables[t.name] = copied;
      }
      for (const t of tables) {
        const [want, landed] = [expected.get(t.name)!, await countRows(tx, t.name)];
        if (report.tables[t.name] !== want || landed !== want) {
          throw new Error(`table ${t.name}: the source holds ${want} rows, ${landed} arrived; nothing was kept`);
        }
        const [from, to] = [await sums(src, t.name), await sums(tx, t.name)];
        if (from.join() !== to.join()) {
          throw new Error(`table ${t.name}: derived counts differ after the copy (${from} vs ${to}); nothing was kept`);
        }
      }
    });
  });
  // A bulk load changes the tables' shape: give the planner fresh statistics now.
  await target.engine.refreshStatistics(target.db);
  return report;
}
