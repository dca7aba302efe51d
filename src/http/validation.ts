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

/** Where in a value a NUL character hides: PostgreSQL text cannot hold one (a 500 otherwise). */
function findNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\u0000')) return `${path}/${key.replace(/\u0000/g, '')}`;
    const found = findNul(inner, `${path}/${key}`);
    if (found !== null) return found;
  }
  return null;
}

type Validate = ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null };

/** Every request part is refused with a field error when any string in it holds a NUL. */
function withoutNul(validate: ValidateFunction): Validate {
  const check: Validate = (data) => {
    const at = findNul(data, '');
    if (at !== null) {
      check.errors = [
        { instancePath: at, keyword: 'pattern', schemaPath: '#', params: {}, message: 'must not contain a NUL character' },
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
    withoutNul(httpPart === 'body' ? strict.compile(schema) : coercing.compile(schema)),
  );
}
