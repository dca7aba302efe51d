import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { recordWriter, valueArray } from '../../src/lib/record-writer.ts';
import { Nullable } from '../../src/resources/wire.schema.ts';

/**
 * JavaScript's writer of a record's JSON (lib/record-writer.ts) walks the schema as the
 * database's does (db/json-record.ts): what it refuses, and what it makes of each kind of
 * value. That it writes the database's bytes for the customer is test/customers/customer-json.test.ts.
 */
const Record = Type.Object({
  id: Type.String(),
  object: Type.Literal('thing'),
  when: Type.String({ format: 'date-time' }),
  maybe_when: Nullable(Type.String({ format: 'date-time' })),
  on: Type.Boolean(),
  maybe_on: Nullable(Type.Boolean()),
  nested: Type.Object({ n: Type.Integer() }),
  items: Type.Array(Type.Object({ k: Type.String() })),
});

interface Row {
  id: string;
  at: number;
  at2: number | null;
  on: boolean | null;
  n: number;
  items: string[];
}

const source = {
  id: (r: Row) => r.id,
  when: (r: Row) => r.at,
  maybe_when: (r: Row) => r.at2,
  on: (r: Row) => r.on,
  maybe_on: (r: Row) => r.on,
  nested: { n: (r: Row) => r.n },
  items: valueArray((r: Row) => r.items, { k: (k: string) => k }),
};

describe('recordWriter', () => {
  it("writes the schema's order, its literals, instants, booleans, nested objects and arrays", () => {
    const write = recordWriter(Record, source);
    const row: Row = { id: 'x', at: 0, at2: null, on: null, n: 3, items: ['a', 'b'] };
    expect(write(row)).toBe(
      '{"id":"x","object":"thing","when":"1970-01-01T00:00:00.000Z","maybe_when":null,"on":false,"maybe_on":null,"nested":{"n":3},"items":[{"k":"a"},{"k":"b"}]}',
    );
    expect(JSON.parse(write({ ...row, at2: 1_700_000_000_123, on: true, items: [] }))).toMatchObject({
      maybe_when: '2023-11-14T22:13:20.123Z',
      on: true,
      maybe_on: true,
      items: [],
    });
  });

  it('refuses a property without a source, at the top, nested or in an array', () => {
    const { nested: _nested, ...noNested } = source;
    expect(() => recordWriter(Record, noNested)).toThrow(/of \$ does not match.*no source for nested/);
    expect(() => recordWriter(Record, { ...source, nested: {} })).toThrow(
      /of \$\.nested does not match.*no source for n/,
    );
    expect(() => recordWriter(Record, { ...source, items: valueArray((r: Row) => r.items, {}) })).toThrow(
      /of \$\.items\[\] does not match.*no source for k/,
    );
  });

  it('refuses a source the schema does not name, and a source of the wrong kind', () => {
    expect(() => recordWriter(Record, { ...source, colour: () => 'red' })).toThrow(/no schema property for colour/);
    expect(() => recordWriter(Record, { ...source, nested: () => 1 })).toThrow(
      /\$\.nested: an object needs a record source/,
    );
    expect(() => recordWriter(Record, { ...source, items: () => [] })).toThrow(
      /\$\.items: an array needs a ValueArray/,
    );
    expect(() => recordWriter(Record, { ...source, id: { x: () => 1 } })).toThrow(/\$\.id: a string needs a value/);
  });
});
