import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';

/**
 * Bodies are validated strictly: no coercion ("1" is not a number, "true" not a boolean)
 * and nothing removed, so an unknown field is a 400 (DECISIONS "Customers"). Query strings
 * arrive as text, so they alone are coerced to the schema's types.
 */
// validateSchema off: the schemas are TypeBox's, checked by the tests, not worth a meta-schema
// compile at every start.
const common: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: false,
  strict: false,
  validateSchema: false,
};

function makeAjv(coerce: boolean) {
  const ajv = new Ajv({ ...common, coerceTypes: coerce });
  addFormats.default(ajv);
  return ajv;
}

/**
 * Text no engine stores as sent: a NUL (PostgreSQL refuses it: a 500) and a lone UTF-16
 * surrogate (each engine replaces it differently, so what we answered would not be what a
 * later read shows, and an undo could never match it).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this refuses
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function findUnstorable(value: unknown, path: string): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) return path || '/';
    const found = findUnstorable(inner, `${path}/${key}`);
    if (found !== null) return found;
  }
  return null;
}

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/** Every request part is refused with a field error when any string in it cannot be stored. */
function storableOnly(validate: ValidateFunction): Validate {
  const check: Validate = (data) => {
    const at = findUnstorable(data, '');
    if (at !== null) {
      check.errors = [
        {
          instancePath: at,
          keyword: 'pattern',
          schemaPath: '#',
          params: {},
          message: 'must be well-formed text without NUL characters',
        },
      ];
      return false;
    }
    const ok = validate(data);
    check.errors = validate.errors as FastifySchemaValidationError[] | null | undefined;
    return ok;
  };
  return check;
}

/**
 * Query strings and paths arrive as text and are coerced to their schema's types, but Ajv's
 * coercion takes whatever Number() takes: `0x10`, `1e2`, ` 5`, `5.0`. A number there must be
 * written as a plain decimal (docs/behaviour.md), checked here once for every parameter.
 */
const PLAIN = { integer: /^-?\d{1,15}$/, number: /^-?\d{1,15}(\.\d{1,15})?$/ } as const;

type NumericKind = keyof typeof PLAIN;

function numericKind(schema: unknown): NumericKind | null {
  if (schema === null || typeof schema !== 'object') return null;
  const s = schema as { type?: unknown; anyOf?: unknown[]; oneOf?: unknown[] };
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  for (const inner of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) {
    const kind = numericKind(inner);
    if (kind) return kind;
  }
  return null;
}

/** The schema's top-level properties that are numbers, with their kind. */
function numericFields(schema: unknown): [string, NumericKind][] {
  const properties = (schema as { properties?: Record<string, unknown> } | null)?.properties ?? {};
  return Object.entries(properties).flatMap(([name, inner]) => {
    const kind = numericKind(inner);
    return kind ? [[name, kind] as [string, NumericKind]] : [];
  });
}

function plainNumbersOnly(validate: Validate, fields: [string, NumericKind][]): Validate {
  if (fields.length === 0) return validate;
  const check: Validate = (data) => {
    if (data !== null && typeof data === 'object') {
      for (const [name, kind] of fields) {
        const value = (data as Record<string, unknown>)[name];
        if (typeof value === 'string' && !PLAIN[kind].test(value)) {
          check.errors = [
            {
              instancePath: `/${name}`,
              keyword: 'type',
              schemaPath: '#',
              params: {},
              message: kind === 'integer' ? 'must be a plain decimal integer' : 'must be a plain decimal number',
            },
          ];
          return false;
        }
      }
    }
    const ok = validate(data);
    check.errors = validate.errors ?? null;
    return ok;
  };
  return check;
}

/**
 * Validators are compiled once per distinct schema and part (many routes share theirs: ids,
 * the page query), each on its first use rather than at start: a cold start then pays for
 * none of them, and the first request of a route a few milliseconds.
 */
export function installValidators(app: FastifyInstance, shared: unknown[]): void {
  let ajvs: { strict: Ajv; coercing: Ajv } | null = null;
  const ajv = (body: boolean) => {
    if (!ajvs) {
      ajvs = { strict: makeAjv(false), coercing: makeAjv(true) };
      for (const schema of shared) {
        ajvs.strict.addSchema(schema as object);
        ajvs.coercing.addSchema(schema as object);
      }
    }
    return body ? ajvs.strict : ajvs.coercing;
  };
  const compiled = new Map<string, Validate>();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const body = httpPart === 'body';
    const key = `${body ? 'body' : 'coerced'}\n${JSON.stringify(schema)}`;
    const known = compiled.get(key);
    if (known) return known;
    let validate: Validate | null = null;
    const onFirstUse: Validate = (data) => {
      validate ??= body
        ? storableOnly(ajv(true).compile(schema))
        : plainNumbersOnly(storableOnly(ajv(false).compile(schema)), numericFields(schema));
      const ok = validate(data);
      onFirstUse.errors = validate.errors ?? null;
      return ok;
    };
    compiled.set(key, onFirstUse);
    return onFirstUse;
  });
}
