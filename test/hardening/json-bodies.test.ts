import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords } from '../../src/import/import.service.ts';
import { memorySource } from '../../src/import/reader.ts';
import { MAX_JSON_DEPTH } from '../../src/lib/json-depth.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { countRows, createCustomer, roomy } from '../helpers/writes.ts';

/**
 * Request bodies read strictly (docs/behaviour.md): nesting past MAX_JSON_DEPTH, bytes that are
 * not UTF-8 and other charsets are refused before anything reads the body; thousands of
 * unknown fields get a bounded error list. Each refusal writes nothing.
 */
const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe.each(ENGINES)('hostile JSON bodies on %s', (engine) => {
  let t: TestApp;
  let id: string;
  let before: { customers: number; changes: number; keys: number };
  beforeAll(async () => {
    t = await makeTestApp(engine);
    await roomy(t);
    id = (await createCustomer(t, t.keys.test, { last_name: 'Kept' })).id;
    before = await counts();
  });
  afterAll(async () => t?.close());

  async function counts() {
    return {
      customers: await countRows(t, 'customers'),
      changes: await countRows(t, 'change_log'),
      keys: await countRows(t, 'idempotency_keys'),
    };
  }

  const send = (method: 'POST' | 'PATCH', payload: string | Buffer, contentType = 'application/json') =>
    t.call(t.keys.test, {
      method,
      url: method === 'POST' ? '/customers' : `/customers/${id}`,
      payload,
      headers: { 'content-type': contentType, ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}) },
    });

  function expectRefused(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, code: string) {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ code, request_id: expect.any(String) });
  }

  it('item 1: a POST nested 3,200 deep and a PATCH 7,300 deep are 400 invalid_request, nothing written', async () => {
    const post = await send('POST', `{"first_name":"Deep","last_name":${nested(3_200, '"x"')}}`);
    expect(post.statusCode).toBe(400);
    expectRefused(post, 'invalid_request');
    expect(post.json().detail).toContain(`more than ${MAX_JSON_DEPTH} deep`);
    const patch = await send('PATCH', `{"last_name":${nested(7_300, '"x"')}}`);
    expect(patch.statusCode).toBe(400);
    expectRefused(patch, 'invalid_request');
    // Objects count as arrays do; brackets inside strings do not.
    const objects = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    expect((await send('POST', objects)).statusCode).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it(`item 1: nesting up to ${MAX_JSON_DEPTH} is parsed (then validated), brackets in strings are text`, async () => {
    const atLimit = await send('POST', `{"first_name":"Deep","x":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(atLimit.statusCode).toBe(400);
    expect(atLimit.json().errors).toEqual([{ field: 'x', message: 'is not a known field' }]);
    const overLimit = await send('POST', `{"first_name":"Deep","x":${nested(MAX_JSON_DEPTH)}}`);
    expect(overLimit.json().detail).toContain('deep');
    const brackets = await send('POST', JSON.stringify({ first_name: `[{"[${'['.repeat(40)}`, last_name: '\\"[' }));
    expect(brackets.statusCode).toBe(201);
    expect(brackets.json().first_name).toBe(`[{"[${'['.repeat(40)}`);
    before = await counts();
  });

  it('item 5: bytes that are not UTF-8 are a 400, not text with U+FFFD in it', async () => {
    for (const bad of [
      Buffer.from([
        0x7b, 0x22, 0x66, 0x69, 0x72, 0x73, 0x74, 0x5f, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22,
        0x7d,
      ]),
      Buffer.concat([Buffer.from('{"first_name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      Buffer.concat([Buffer.from('{"first_name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]), // a surrogate
    ]) {
      const res = await send('POST', bad);
      expect(res.statusCode).toBe(400);
      expectRefused(res, 'invalid_request');
      expect(res.json().detail).toContain('UTF-8');
    }
    const patched = await send(
      'PATCH',
      Buffer.concat([Buffer.from('{"last_name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
    );
    expect(patched.statusCode).toBe(400);
    expect(await counts()).toEqual(before);
    const read = await t.call(t.keys.test, { method: 'GET', url: `/customers/${id}` });
    expect(read.json().last_name).toBe('Kept');
  });

  it('item 5: a charset other than UTF-8 is a 415; utf-8 named any way is fine', async () => {
    for (const type of [
      'application/json; charset=utf-16',
      'application/json; charset=UTF-16LE',
      'application/json; charset=iso-8859-1',
      'application/json;charset="latin1"',
    ]) {
      const res = await send('POST', '{"first_name":"Other"}', type);
      expect(res.statusCode).toBe(415);
      expectRefused(res, 'unsupported_media_type');
    }
    expect(await counts()).toEqual(before);
    for (const type of [
      'application/json; charset=utf-8',
      'application/json; charset="UTF-8"',
      'application/json;charset=utf8',
    ]) {
      expect((await send('POST', '{"first_name":"Named"}', type)).statusCode).toBe(201);
    }
    // A UTF-8 byte-order mark is UTF-8 too.
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"first_name":"Marked"}')]);
    expect((await send('POST', bom)).statusCode).toBe(201);
    before = await counts();
  });

  it('item 8: 5,000 unknown fields are answered with the first 20 and their count, nothing written', async () => {
    const body = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`f${i}`, i]));
    const res = await send('POST', JSON.stringify({ first_name: 'Many', ...body }));
    expect(res.statusCode).toBe(400);
    const problem = res.json();
    expect(problem.errors).toHaveLength(20);
    expect(problem.errors[0]).toEqual({ field: 'f0', message: 'is not a known field' });
    expect(problem.errors_total).toBe(5_000);
    expect(res.body.length).toBeLessThan(4_096);
    // A handful of errors comes whole, without a count.
    const few = await send('POST', JSON.stringify({ first_name: 'Few', a: 1, b: 2 }));
    expect(few.json().errors).toHaveLength(2);
    expect(few.json().errors_total).toBeUndefined();
    expect(await counts()).toEqual(before);
  });
});

describe.each(ENGINES)('deep import lines on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('item 1 for the CLI: an import line nested past the limit is a bad line, not a crash', async () => {
    const deep = `{"object":"tag","id":"tag_x","name":${nested(100_000, '"x"')}}`;
    const report = await importRecords(t.storage, { workspaceId: t.workspaceId, source: memorySource(deep) });
    expect(report.bad_lines).toEqual([
      { line: 1, object: null, id: null, errors: [`nests objects and arrays more than ${MAX_JSON_DEPTH} deep`] },
    ]);
    expect(report.imported).toEqual({});
  });
});
