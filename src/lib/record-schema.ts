import type { TObject, TSchema } from '@sinclair/typebox';

/**
 * What the two writers of a record's JSON read off its TypeBox schema: the database's
 * (db/json-record.ts) and JavaScript's (lib/record-writer.ts). Both walk the schema with
 * these, so they agree on its properties, their order, each one's JSON type and the
 * literals written from the schema itself.
 */

/**
 * Refuses a source that does not produce exactly the schema's properties: each writer calls
 * it on every object it writes, and tests call it on its own.
 */
export function checkRecordSource(schema: TObject, source: object, path = '$'): void {
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

/** The literal a property always has (`Type.Literal`), written from the schema without a source. */
function constOf(schema: TSchema): unknown {
  return (schema as { const?: unknown }).const;
}

/** The literal of a property without a source: only a string literal may go without one. */
export function literalOf(schema: TSchema, path: string): string {
  const literal = constOf(schema);
  if (typeof literal !== 'string') throw new Error(`${path}: only a string literal is written from the schema`);
  return literal;
}

/** The JSON type of a schema and whether it may be null: `type: [t, 'null']` or `anyOf: [s, null]`. */
export function typeOf(schema: TSchema, path: string): { type: string; nullable: boolean } {
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

/** An instant: written as toISOString writes it, from epoch milliseconds. */
export function isInstant(schema: TSchema, type: string): boolean {
  return type === 'string' && (schema as { format?: string }).format === 'date-time';
}

/** An array's item schema, when the items are objects (the only arrays a record holds). */
export function objectItems(schema: TSchema, path: string): TObject | null {
  const items = (schema as { items?: TSchema }).items;
  return items && typeOf(items, path).type === 'object' ? (items as TObject) : null;
}
