import { CompiledQuery, type Compilable, type Insertable, type QueryResult, type RawBuilder } from 'kysely';
import type { Database, Queryable } from './schema.ts';

/**
 * A query built with Kysely once and then run with new values, for the hot statements, whose
 * shape is fixed: building and compiling a query costs more than SQLite takes to run it
 * (ARCHITECTURE.md, "Machinery that pays"). `build` gets `param`, which stands in for a value of `P` by its name;
 * compiling records which bound value each stand-in became, and every run binds the real
 * values in their places. The compiled text is kept per dialect and shape, keyed by the
 * dialect's adapter, which a database and all its transactions share, so a fresh
 * transaction compiles nothing again.
 *
 * Every value the statement binds must be a parameter: anything else the builder captured
 * (a workspace, a mode) would be frozen into the statement at its first compile and bound
 * for every later caller, so compile() refuses it. A stand-in must be a bound value
 * (`where(col, '=', param('x'))`), never an identifier, a list of `in` or anything Kysely
 * would inspect.
 */
const STAND_IN = '\u0000param:';

function standIn<T>(name: string): T {
  return `${STAND_IN}${name}` as unknown as T;
}

/** `param(name)`: the stand-in for parameter `name`, typed as its value (present in any shape that uses it). */
export type Param<P> = <K extends keyof P & string>(name: K) => Exclude<P[K], undefined>;

type Build<P, R> = (db: Queryable, param: Param<P>, shape: string) => Compilable<R>;

/**
 * What was compiled for `db`'s dialect under `key`, made once by `make`. Keyed by the
 * dialect's adapter, which a database and all its transactions share.
 */
class PerDialect<K, V> {
  private readonly byDialect = new WeakMap<object, Map<K, V>>();

  get(db: Queryable, key: K, make: () => V): V {
    const dialect = db.getExecutor().adapter;
    let known = this.byDialect.get(dialect);
    if (!known) {
      known = new Map();
      this.byDialect.set(dialect, known);
    }
    let value = known.get(key);
    if (value === undefined) {
      value = make();
      known.set(key, value);
    }
    return value;
  }
}

interface Compiled {
  sql: string;
  /** The parameter each bound value is, in order. */
  names: string[];
}

export class PreparedQuery<P extends object, R> {
  private readonly compiled = new PerDialect<string, Compiled>();

  /** `build(db, param, shape)`: the query for one shape (say, with or without a cursor). */
  constructor(private readonly build: Build<P, R>) {}

  async execute(db: Queryable, params: P, shape = ''): Promise<R[]> {
    return (await this.run(db, params, shape)).rows;
  }

  /** The whole result: rows, and for a write the rows it changed. */
  async run(db: Queryable, params: P, shape = ''): Promise<QueryResult<R>> {
    const { sql, names } = this.compile(db, shape);
    const values = names.map((name) => {
      const value = (params as Record<string, unknown>)[name];
      if (value === undefined) throw new Error(`prepared query: no value for ${name}`);
      return value;
    });
    return db.executeQuery<R>(CompiledQuery.raw(sql, values));
  }

  private compile(db: Queryable, shape: string): Compiled {
    return this.compiled.get(db, shape, () => {
      const query = this.build(db, standIn as Param<P>, shape).compile();
      const names = query.parameters.map((value) => {
        if (typeof value === 'string' && value.startsWith(STAND_IN)) return value.slice(STAND_IN.length);
        throw new Error(
          `prepared query: the statement binds ${JSON.stringify(value)}, which is not a parameter; ` +
            'a value captured when it was built would be bound for every caller (pass it as a parameter)',
        );
      });
      return { sql: query.sql, names };
    });
  }
}

/** A statement written with Kysely's `sql`, as PreparedQuery's `build` answers it. */
export function rawQuery<R>(db: Queryable, query: RawBuilder<R>): Compilable<R> {
  return { compile: () => query.compile(db) };
}

/**
 * An INSERT of one row, its columns the row's own keys: compiled once per set of columns.
 * `doNothingOnConflict` adds ON CONFLICT DO NOTHING (the caller reads the inserted count).
 */
export function preparedInsert<T extends keyof Database>(table: T, options: { doNothingOnConflict?: boolean } = {}) {
  const query = new PreparedQuery<Record<string, unknown>, never>((db, param, shape) => {
    const values = Object.fromEntries(shape.split(',').map((column) => [column, param(column)]));
    const insert = db.insertInto(table).values(values as never);
    return options.doNothingOnConflict ? insert.onConflict((oc) => oc.doNothing()) : insert;
  });
  return async (db: Queryable, row: Insertable<Database[T]>): Promise<number> => {
    const values = row as unknown as Record<string, unknown>;
    const result = await query.run(db, values, Object.keys(values).join(','));
    return Number(result.numAffectedRows ?? 0n);
  };
}

/**
 * A multi-row INSERT (an upsert, say) of many rows, as few statements compiled once each:
 * batches of `rowsPerStatement`, the rest in batches of powers of two, so a dialect has at
 * most a dozen statement texts whatever the row count, and an INSERT of thousands of rows
 * (the activity tracker's flush) is not built again on every call. `build` gets rows of
 * stand-ins, one per column in `columns`.
 */
export class PreparedInsertMany<R extends object> {
  private readonly compiled = new PerDialect<number, string>();

  constructor(
    private readonly columns: readonly (keyof R & string)[],
    private readonly build: (db: Queryable, rows: Record<string, unknown>[]) => Compilable<unknown>,
    private readonly rowsPerStatement = 512,
  ) {}

  async run(db: Queryable, rows: readonly R[]): Promise<void> {
    let at = 0;
    while (at < rows.length) {
      const left = rows.length - at;
      const n = left >= this.rowsPerStatement ? this.rowsPerStatement : 2 ** Math.floor(Math.log2(left));
      const values: unknown[] = new Array(n * this.columns.length);
      let i = 0;
      for (let r = at; r < at + n; r++) {
        const row = rows[r] as Record<string, unknown>;
        for (const column of this.columns) values[i++] = row[column];
      }
      await db.executeQuery(CompiledQuery.raw(this.sql(db, n), values));
      at += n;
    }
  }

  private sql(db: Queryable, n: number): string {
    return this.compiled.get(db, n, () => {
      const row = Object.fromEntries(this.columns.map((c) => [c, standIn(c)]));
      const query = this.build(
        db,
        Array.from({ length: n }, () => row),
      ).compile();
      // The values must be the rows' columns in order and nothing else, or run() would misplace them.
      const expected = Array.from({ length: n * this.columns.length }, (_, k) =>
        standIn(this.columns[k % this.columns.length]!),
      );
      if (query.parameters.length !== expected.length || query.parameters.some((p, k) => p !== expected[k])) {
        throw new Error('PreparedInsertMany: the statement binds other values than the rows’ columns in order');
      }
      return query.sql;
    });
  }
}
