import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';

/**
 * Bodies are validated strictly: no coercion ("1" is not a number, "true" not a boolean)
 * and nothing removed, so an unknown field is a 400 (DECISIONS "Customers"). Query strings
 * arrive as text, so they alone are coerced to the schema's types.
 */
const common: Options = { allErrors: true, removeAdditional: false, useDefaults: false, strict: false };

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

export function installValidators(app: FastifyInstance, shared: unknown[]): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  for (const schema of shared) {
    strict.addSchema(schema as object);
    coercing.addSchema(schema as object);
  }
  app.setValidatorCompiler(({ schema, httpPart }) =>
    storableOnly(httpPart === 'body' ? strict.compile(schema) : coercing.compile(schema)),
  );
}
