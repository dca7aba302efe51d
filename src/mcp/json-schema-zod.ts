import { z } from 'zod';

/**
 * Tool arguments from a request body's JSON Schema as `/openapi.json` serves it, because the
 * MCP SDK takes zod: the tools then take exactly the fields the API takes, with their types,
 * nulls, enums, required fields and descriptions, and nothing is written twice.
 *
 * Only the shape is carried over. The API's own rules (lengths, patterns, a unique email,
 * phone numbers, consent) are the API's to apply, and its answer says what was wrong. A
 * keyword outside the subset below throws, so a schema this would misread fails the MCP
 * server's start and its test instead of passing as something looser.
 */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  anyOf?: JsonSchema[];
  description?: string;
  [keyword: string]: unknown;
}

/** Checked by the API, not by the tool (see above); their presence changes no argument's shape. */
const API_RULES = new Set(['minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'example', 'examples']);
const SHAPE = new Set(['type', 'enum', 'properties', 'required', 'additionalProperties', 'anyOf', 'description']);

/** An object schema's properties as a zod shape, what `registerTool`'s `inputSchema` takes. */
export function zodShape(schema: JsonSchema, where = 'body'): Record<string, z.ZodType> {
  if (schema.type !== 'object' || !schema.properties) throw new Error(`${where}: not an object schema`);
  check(schema, where);
  const required = new Set(schema.required ?? []);
  const shape: Record<string, z.ZodType> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const field = zodOf(property, `${where}.${name}`);
    // Described last: zod keeps a description on the schema it was given, not on wrappers made after.
    const description = property.description ?? property.anyOf?.find((s) => s.description)?.description;
    const argument = required.has(name) ? field : field.optional();
    shape[name] = description ? argument.describe(description) : argument;
  }
  return shape;
}

function zodOf(schema: JsonSchema, where: string): z.ZodType {
  check(schema, where);
  const nonNull = schema.anyOf?.filter((s) => s.type !== 'null');
  if (nonNull) {
    // Nullable(object) in the API's schemas: anyOf [the object, null]; nothing else is a union.
    if (nonNull.length !== 1 || schema.anyOf!.length !== 2) throw new Error(`${where}: a union other than X or null`);
    return zodOf(nonNull[0]!, where).nullable();
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const base = types.filter((t) => t !== 'null');
  if (base.length !== 1)
    throw new Error(`${where}: type ${JSON.stringify(schema.type)} is not one type or one type and null`);
  const nullable = base.length !== types.length;
  const values = schema.enum?.filter((v) => v !== null);
  let field: z.ZodType;
  if (values) {
    if (base[0] !== 'string' || !values.every((v) => typeof v === 'string') || values.length === 0) {
      throw new Error(`${where}: an enum other than strings`);
    }
    field = z.enum(values as [string, ...string[]]);
  } else {
    field = primitive(schema, base[0], where);
  }
  return nullable ? field.nullable() : field;
}

function primitive(schema: JsonSchema, type: string | undefined, where: string): z.ZodType {
  switch (type) {
    case 'string':
      return z.string();
    case 'boolean':
      return z.boolean();
    case 'integer':
      return z.number().int();
    case 'number':
      return z.number();
    case 'object': {
      // The API refuses an unknown member (DECISIONS "Customers"), so the tool does too.
      const shape = zodShape(schema, where);
      return schema.additionalProperties === false ? z.strictObject(shape) : z.object(shape);
    }
    default:
      throw new Error(`${where}: type ${JSON.stringify(type)} is not supported`);
  }
}

function check(schema: JsonSchema, where: string): void {
  const unknown = Object.keys(schema).filter((k) => !SHAPE.has(k) && !API_RULES.has(k));
  if (unknown.length > 0) throw new Error(`${where}: JSON Schema keyword ${unknown.join(', ')} is not supported`);
}
