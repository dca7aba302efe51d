import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { type JsonSchema, zodShape } from '../../src/mcp/json-schema-zod.ts';
import { CreateCustomerBody, UpdateCustomerBody } from '../../src/resources/customers/customer-body.schema.ts';
import { shapeOf } from './schema-shape.ts';

/**
 * The MCP tools' customer arguments are built from the API's body schema; these check the
 * converter on the schemas the API has, and that it refuses what it cannot carry over.
 * test/mcp/tools.test.ts checks the same on the tools a running server lists.
 */
const asServed = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as JsonSchema;
/** The JSON Schema the MCP SDK lists for a tool's input (its own zod v4 conversion). */
const listed = (shape: Record<string, z.ZodType>) =>
  z.toJSONSchema(z.object(shape), { target: 'draft-7', io: 'input' });

describe('tool arguments from a request body schema', () => {
  it.each([
    ['create', CreateCustomerBody],
    ['update', UpdateCustomerBody],
  ])('the %s body: same fields, types, nulls, enums and required fields', (_, body) => {
    const served = asServed(body);
    expect(shapeOf(listed(zodShape(served)))).toEqual(shapeOf(served));
    expect(Object.keys(zodShape(served))).toContain('address');
  });

  it('takes what the API takes and refuses a wrong type, a value outside the enum and an unknown address member', () => {
    const create = z.object(zodShape(asServed(CreateCustomerBody)));
    const ok = { first_name: 'Ada', email: null, gender: null, adult: true, address: { line1: null, country: 'AU' } };
    expect(create.safeParse(ok).success).toBe(true);
    expect(create.safeParse({ last_name: 'Lovelace' }).success).toBe(false);
    expect(create.safeParse({ first_name: null }).success).toBe(false);
    expect(create.safeParse({ first_name: 'Ada', adult: null }).success).toBe(false);
    expect(create.safeParse({ first_name: 'Ada', gender: 'unknown' }).success).toBe(false);
    expect(create.safeParse({ first_name: 'Ada', address: { planet: 'Mars' } }).success).toBe(false);
    // Lengths are the API's to check, and its answer says which field.
    expect(create.safeParse({ first_name: 'A'.repeat(500) }).success).toBe(true);
    const update = z.object(zodShape(asServed(UpdateCustomerBody)));
    expect(update.safeParse({}).success).toBe(true);
  });

  it('carries descriptions over', () => {
    const shape = zodShape(asServed(CreateCustomerBody));
    expect(shape.email!.description).toBe(CreateCustomerBody.properties.email.description);
  });

  it('refuses a schema it would misread, naming where', () => {
    const object = (property: JsonSchema): JsonSchema => ({ type: 'object', properties: { field: property } });
    expect(() => zodShape({ type: 'string' })).toThrow(/body: not an object schema/);
    expect(() => zodShape(object({ type: 'array', items: { type: 'string' } }))).toThrow(/body\.field: .*items/);
    expect(() => zodShape(object({ oneOf: [{ type: 'string' }, { type: 'integer' }] }))).toThrow(/oneOf/);
    expect(() => zodShape(object({ anyOf: [{ type: 'string' }, { type: 'integer' }] }))).toThrow(/union/);
    expect(() => zodShape(object({ type: ['string', 'integer'] }))).toThrow(/not one type/);
    expect(() => zodShape(object({ type: 'integer', enum: [1, 2] }))).toThrow(/enum other than strings/);
  });
});
