import type { TObject, TSchema } from '@sinclair/typebox';
import { checkRecordSource, isInstant, literalOf, objectItems, typeOf } from './record-schema.ts';

/**
 * A record's JSON written in JavaScript from the record's TypeBox schema: the twin of
 * db/json-record.ts, which has the database write it. Both walk the schema the same way
 * (lib/record-schema.ts): its properties in its order, string literals from the schema,
 * instants from epoch milliseconds as toISOString writes them, booleans as JSON booleans,
 * nested objects and arrays of objects. The caller says where each property's value comes
 * from, shaped like the schema; a property without a source, or a source without a
 * property, is refused when the writer is made.
 *
 * A leaf's source gives the value as stored: the text or number; for a boolean, what the
 * SQL source's condition is (true, false, or null when unknown); for an instant, epoch
 * milliseconds or null.
 */
export type ValueSource<R> = { readonly [property: string]: ValueField<R> };
export type ValueField<R> = ((row: R) => unknown) | ValueSource<R> | ValueArray<R>;

/** An array of records: the items, in the order the record lists them, and each one's source (valueArray). */
export class ValueArray<R> {
  constructor(
    readonly items: (row: R) => readonly unknown[],
    // `never`: any item type's source fits; valueArray ties it to the items.
    readonly item: ValueSource<never>,
  ) {}
}

export function valueArray<R, I>(items: (row: R) => readonly I[], item: ValueSource<I>): ValueArray<R> {
  return new ValueArray(items, item);
}

type Write<R> = (row: R) => unknown;

/** Makes the writer once (the schema walked, the sources checked); each call is then one JSON.stringify. */
export function recordWriter<R>(schema: TObject, source: ValueSource<R>): (row: R) => string {
  const write = objectWriter(schema, source, '$');
  return (row) => JSON.stringify(write(row));
}

function objectWriter<R>(schema: TObject, source: ValueSource<R>, path: string): Write<R> {
  checkRecordSource(schema, source, path);
  const fields = Object.entries(schema.properties).map(
    ([name, property]) => [name, fieldWriter(property, source[name], `${path}.${name}`)] as const,
  );
  return (row) => {
    // Keys go in as the schema lists them, so JSON.stringify writes them in its order.
    const out: Record<string, unknown> = {};
    for (const [name, write] of fields) out[name] = write(row);
    return out;
  };
}

function fieldWriter<R>(schema: TSchema, source: ValueField<R> | undefined, path: string): Write<R> {
  if (source === undefined) {
    const literal = literalOf(schema, path);
    return () => literal;
  }
  const { type, nullable } = typeOf(schema, path);
  if (type === 'object') {
    if (nullable || typeof source === 'function' || source instanceof ValueArray) {
      throw new Error(`${path}: an object needs a record source`);
    }
    return objectWriter(schema as TObject, source, path);
  }
  if (type === 'array') {
    const items = objectItems(schema, path);
    if (nullable || !(source instanceof ValueArray) || !items) {
      throw new Error(`${path}: an array needs a ValueArray source and object items`);
    }
    const item = objectWriter(items, source.item as ValueSource<unknown>, `${path}[]`);
    return (row) => source.items(row).map(item);
  }
  if (typeof source !== 'function') throw new Error(`${path}: a ${type} needs a value`);
  // As the database writes them: a boolean that may not be null is false when unknown.
  if (type === 'boolean') return nullable ? (row) => source(row) ?? null : (row) => source(row) === true;
  if (isInstant(schema, type)) {
    return (row) => {
      const ms = source(row) as number | null;
      return ms === null ? null : new Date(ms).toISOString();
    };
  }
  return source;
}
