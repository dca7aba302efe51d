import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { RECORD_KINDS, type ObjectName } from './record-kinds.ts';

/**
 * Checks one import line against its record schema, more strictly than a response is
 * checked: a field the schema does not name would be stored and then sent to every
 * client, so it is refused; and an instant must already be in the wire shape
 * (SPEC "Conventions": `YYYY-MM-DDTHH:mm:ss.sssZ`) because it is stored as given.
 */
const WIRE_INSTANT = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // properties is a map of names to schemas: each name is kept, each schema made strict.
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, strict(v)]))
        : strict(value);
  }
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined)
    out.additionalProperties = false;
  if (out.format === 'date-time') out.pattern = WIRE_INSTANT;
  return out;
}

const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
addFormats.default(ajv);
const validators = new Map<ObjectName, ValidateFunction>();

function validatorFor(object: ObjectName): ValidateFunction {
  let v = validators.get(object);
  if (!v) {
    v = ajv.compile(strict(RECORD_KINDS[object].schema as TSchema) as object);
    validators.set(object, v);
  }
  return v;
}

/** [field, reason] of one ajv error, the field dotted like `people.0.customer`. */
function describe(e: ErrorObject): [string, string] {
  const params = e.params as Record<string, string>;
  const path = e.instancePath.slice(1).replace(/\//g, '.');
  const join = (name: string) => (path ? `${path}.${name}` : name);
  if (e.keyword === 'additionalProperties') return [join(params.additionalProperty!), 'is not a field of this record'];
  if (e.keyword === 'required') return [join(params.missingProperty!), 'is required'];
  if (e.keyword === 'pattern' && params.pattern === WIRE_INSTANT)
    return [path, 'must be an instant like 2026-10-08T09:30:00.000Z'];
  return [path || 'record', e.message ?? 'is not valid'];
}

/** Readable reasons (one per field, at most `max`); empty when the record fits its schema. */
export function schemaErrors(object: ObjectName, record: unknown, max = 5): string[] {
  const validate = validatorFor(object);
  if (validate(record)) return [];
  const byField = new Map<string, string>();
  for (const e of validate.errors ?? []) {
    // A nullable object reports its null branch and the anyOf too; the object branch says more.
    if (e.keyword === 'anyOf' || (e.keyword === 'type' && e.params.type === 'null')) continue;
    const [field, reason] = describe(e);
    if (!byField.has(field)) byField.set(field, `${field} ${reason}`);
    if (byField.size >= max) break;
  }
  return [...byField.values()];
}
