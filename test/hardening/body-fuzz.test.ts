import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { countRows, createCustomer, roomy } from '../helpers/writes.ts';

/**
 * Body fuzz: request bodies that mix nesting depth (up to thousands), size (to past the
 * 64 KiB limit), encodings (broken UTF-8, UTF-16, Latin-1, a BOM, charset parameters) and
 * field counts (to thousands of unknown fields), sent as POST and PATCH. Never a 5xx; every
 * refusal a problem document with a catalogue code; a refusal writes nothing.
 */
const depth = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.integer({ min: 40, max: 8_000 }),
  fc.constantFrom(31, 32, 33),
);
const fieldCount = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 5, max: 4_000 }));
const padding = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 60_000, max: 70_000 }));
const text = fc.oneof(
  fc.constantFrom('Ada', 'Zoë', '日本', '[{"', '\\"'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);
const encoding = fc.constantFrom('utf-8', 'utf-8-bom', 'broken-utf-8', 'utf-16le', 'latin1');
const charset = fc.constantFrom(null, 'utf-8', 'UTF-8', 'utf-16', 'iso-8859-1', '"utf8"');
const shape = fc.record({
  method: fc.constantFrom('POST', 'PATCH'),
  depth,
  nestIn: fc.constantFrom('[', '{"a":'),
  fields: fieldCount,
  padding,
  name: text,
  encoding,
  charset,
  truncate: fc.boolean(),
});
type Shape = typeof shape extends fc.Arbitrary<infer T> ? T : never;

function bodyOf(s: Shape): Buffer {
  const open = s.nestIn.repeat(s.depth);
  const close = (s.nestIn === '[' ? ']' : '}').repeat(s.depth);
  const parts = [
    `"first_name":${JSON.stringify(s.name)}`,
    `"last_name":${open}${JSON.stringify('x'.repeat(s.padding))}${close}`,
  ];
  for (let i = 0; i < s.fields; i++) parts.push(`"u${i}":${i}`);
  let json = `{${parts.join(',')}}`;
  if (s.truncate) json = json.slice(0, Math.max(1, json.length - 3));
  switch (s.encoding) {
    case 'utf-8':
      return Buffer.from(json, 'utf8');
    case 'utf-8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json, 'utf8')]);
    case 'broken-utf-8': {
      const bytes = Buffer.from(json, 'utf8');
      const at = Math.min(bytes.length, 15);
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xc3, 0x28, 0xff]), bytes.subarray(at)]);
    }
    case 'utf-16le':
      return Buffer.from(json, 'utf16le');
    case 'latin1':
      return Buffer.from(json, 'latin1');
  }
  throw new Error(s.encoding);
}

describe.each(ENGINES)('request body fuzz on %s', (engine) => {
  let t: TestApp;
  let id: string;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    id = (await createCustomer(t, t.keys.test)).id;
  });
  afterAll(async () => t?.close());

  const counts = async () => ({
    customers: await countRows(t, 'customers'),
    changes: await countRows(t, 'change_log'),
    keys: await countRows(t, 'idempotency_keys'),
  });

  it('never a 5xx; every refusal a problem document; a refusal writes nothing', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(shape, async (s) => {
        const before = await counts();
        const res = await t.call(t.keys.test, {
          method: s.method,
          url: s.method === 'POST' ? '/customers' : `/customers/${id}`,
          payload: bodyOf(s),
          headers: {
            'content-type': `application/json${s.charset ? `; charset=${s.charset}` : ''}`,
            ...(s.method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
          },
        });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        expect(res.statusCode, res.body.slice(0, 200)).toBeLessThan(500);
        if (res.statusCode >= 400) {
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          const problem = res.json();
          expect(ERROR_CODES).toContain(problem.code);
          expect(problem.status).toBe(res.statusCode);
          expect(problem.request_id).toBe(res.headers['request-id']);
          expect(problem.errors?.length ?? 0).toBeLessThanOrEqual(20);
          expect(await counts()).toEqual(before);
        }
      }),
      { numRuns: 150 },
    );
    // The runs reached each kind of refusal, not one of them only.
    for (const status of [400, 413, 415]) expect(statuses.get(status) ?? 0, `${status}`).toBeGreaterThan(0);
  });
});
