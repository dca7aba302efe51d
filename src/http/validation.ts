import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

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

export function installValidators(app: FastifyInstance, shared: unknown[]): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  for (const schema of shared) {
    strict.addSchema(schema as object);
    coercing.addSchema(schema as object);
  }
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? strict.compile(schema) : coercing.compile(schema),
  );
}
