import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../../src/errors.ts';
import { GUIDE_TITLES } from '../../src/http/guides.ts';
import { BURST_FACTOR, CUSTOMER_RULE_MIN_WORKSPACE } from '../../src/jobs/activity-rules.ts';
import { LIMITS } from '../../src/limits/limits.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/**
 * The served /openapi.json is what /docs renders and what the client is generated
 * from. Every property says what it holds, every operation has an example its own schema
 * accepts, the guides are there, and a real OpenAPI linter finds nothing. The document does
 * not depend on the engine, so one is enough.
 */
type Schema = Record<string, unknown>;
type Operation = {
  operationId?: string;
  description?: string;
  parameters?: { name: string; in: string; description?: string; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<
    string,
    { $ref?: string; description?: string; content?: Record<string, { schema: Schema; example?: unknown }> }
  >;
};
type Doc = {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, Operation['responses'][string]> };
};

/** Every property of every object schema in the document, by its JSON pointer. */
function undescribedProperties(node: unknown, pointer: string, found: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const [i, child] of node.entries()) undescribedProperties(child, `${pointer}/${i}`, found);
    return found;
  }
  if (!node || typeof node !== 'object') return found;
  const properties = (node as { properties?: Record<string, Schema> }).properties;
  if (properties && typeof properties === 'object') {
    for (const [name, schema] of Object.entries(properties)) {
      if (typeof schema.description !== 'string' && typeof schema.$ref !== 'string')
        found.push(`${pointer}/properties/${name}`);
    }
  }
  for (const [key, child] of Object.entries(node)) undescribedProperties(child, `${pointer}/${key}`, found);
  return found;
}

function operations(doc: Doc): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
}

/** A section of the guides: from its heading to the next one of the same level. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) return '';
  const end = markdown.indexOf('\n## ', start + 4);
  return markdown.slice(start, end < 0 ? undefined : end);
}

describe('the published OpenAPI document', () => {
  let t: TestApp;
  let doc: Doc;
  let source: string;

  beforeAll(async () => {
    t = await makeTestApp(ENGINES[0]!);
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    source = res.body;
    doc = JSON.parse(source) as Doc;
  });
  afterAll(async () => t?.close());

  it('describes every property of every schema, and every parameter', () => {
    expect(undescribedProperties(doc, '#')).toEqual([]);
    const bare = operations(doc).flatMap(([name, op]) =>
      (op.parameters ?? [])
        .filter((p) => !p.description && typeof p.schema?.description !== 'string')
        .map((p) => `${name} ${p.in} ${p.name}`),
    );
    expect(bare).toEqual([]);
  });

  it('gives every operation a unique operationId and examples its own schemas accept', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ components: doc.components }, 'openapi');
    const compile = (schema: Schema) =>
      ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/')));
    const problems: string[] = [];
    const ids = new Set<string>();
    for (const [name, op] of operations(doc)) {
      if (!op.operationId || ids.has(op.operationId)) problems.push(`${name}: operationId ${op.operationId}`);
      ids.add(op.operationId ?? '');
      const success = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
      expect(success.length, name).toBeGreaterThan(0);
      for (const [status, response] of success) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        if (media.example === undefined) problems.push(`${name} ${status}: no example`);
        else if (!compile(media.schema)(media.example)) problems.push(`${name} ${status}: ${ajv.errorsText()}`);
      }
      const body = op.requestBody?.content['application/json'];
      if (body) {
        if (body.example === undefined) problems.push(`${name} request: no example`);
        else {
          const validate = compile(body.schema);
          if (!validate(body.example)) problems.push(`${name} request: ${ajv.errorsText(validate.errors)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('an example that breaks its schema is caught (the check above can fail)', () => {
    const ajv = new Ajv({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema({ components: doc.components }, 'openapi');
    const op = doc.paths['/customers']!.post!;
    const media = op.responses['201']!.content!['application/json']!;
    const schema = JSON.parse(JSON.stringify(media.schema).replace(/"#\/components\//g, '"openapi#/components/'));
    const broken = { ...(media.example as object), version: 4 };
    expect(ajv.validate(schema, media.example)).toBe(true);
    expect(ajv.validate(schema, broken)).toBe(false);
  });

  it('carries the guides, each with a curl example, every error code and every limit', () => {
    const guides = doc.info.description;
    for (const title of GUIDE_TITLES) {
      const text = section(guides, title);
      expect(text, title).not.toBe('');
      expect(text, title).toMatch(/```sh\ncurl -s/);
    }
    const errors = section(guides, 'Errors');
    for (const code of ERROR_CODES) expect(errors).toContain(`\`${code}\``);
    const limits = section(guides, 'Limits');
    for (const name of Object.keys(LIMITS)) expect(limits).toContain(`\`${name}\``);
    for (const header of ['RateLimit-Policy', 'RateLimit:', 'Retry-After']) expect(limits).toContain(header);
    // The server's own base URL, so the examples work as printed.
    expect(guides).toContain('curl -s http://api.test/key');
  });

  it('describes every operation', () => {
    const bare = operations(doc).filter(([, op]) => !op.description?.trim());
    expect(bare.map(([name]) => name)).toEqual([]);
  });

  it("lists each operation's error answers by status with their codes: no 4XX catch-all", () => {
    const problems: string[] = [];
    for (const [name, op] of operations(doc)) {
      const statuses = Object.keys(op.responses);
      for (const status of statuses.filter((s) => !/^\d{3}$/.test(s))) problems.push(`${name}: catch-all ${status}`);
      // Every operation needs a key, so it can meet the version check, auth and the limits.
      for (const status of ['400', '401', '403', '429', '500', '503'])
        if (!statuses.includes(status)) problems.push(`${name}: no ${status}`);
      for (const [status, found] of Object.entries(op.responses).filter(([s]) => Number(s) >= 400)) {
        // Error answers alike across operations are shared in components.responses.
        const response = found.$ref ? doc.components.responses[found.$ref.split('/').pop()!]! : found;
        const schema = response.content?.['application/problem+json']?.schema as
          | { allOf?: { properties?: { code?: { enum?: ErrorCode[] } } }[] }
          | undefined;
        const codes = schema?.allOf?.find((part) => part.properties?.code)?.properties?.code?.enum ?? [];
        if (codes.length === 0) problems.push(`${name} ${status}: no codes`);
        for (const code of codes) {
          if (ERROR_CATALOGUE[code]?.status !== Number(status)) problems.push(`${name} ${status}: ${code}`);
          if (!response.description?.includes(`\`${code}\`:`))
            problems.push(`${name} ${status}: ${code} is not described`);
        }
      }
    }
    expect(problems).toEqual([]);
    // What the route reads decides the rest: an id can name nothing, a POST needs its key.
    expect(Object.keys(doc.paths['/venues/{id}']!.get!.responses)).toContain('404');
    expect(Object.keys(doc.paths['/venues']!.get!.responses)).not.toContain('404');
    const create = Object.keys(doc.paths['/customers']!.post!.responses);
    for (const status of ['409', '413', '415', '422', '428']) expect(create).toContain(status);
    expect(Object.keys(doc.paths['/customers/{id}']!.patch!.responses)).toContain('412');
  });

  it('shows every placeholder as written: no <word> outside code, where markdown would eat it as HTML', () => {
    const found: string[] = [];
    const visit = (node: unknown, pointer: string): void => {
      if (!node || typeof node !== 'object') return;
      for (const [key, child] of Object.entries(node)) {
        if (key === 'description' && typeof child === 'string') {
          const prose = child.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
          for (const tag of prose.match(/<[^>\s]+>/g) ?? []) found.push(`${pointer}: ${tag}`);
        } else visit(child, `${pointer}/${key}`);
      }
    };
    visit(doc, '#');
    expect(found).toEqual([]);
    const ifMatch = doc.paths['/customers/{id}']!.patch!.parameters!.find((p) => p.name === 'if-match');
    expect(ifMatch?.description).toContain('`"<version>"`');
  });

  it('tells in the Limits guide what pauses a key, that a first sync is exempt, and how to sync without it', () => {
    const limits = section(doc.info.description, 'Limits');
    expect(limits).toContain('### Unusual activity');
    expect(limits).toContain(`${CUSTOMER_RULE_MIN_WORKSPACE} live customers`);
    expect(limits).toContain(`more than ${BURST_FACTOR} times its hourly average`);
    expect(limits).toContain('first 24 hours are its first sync');
    expect(limits).toContain('`key_paused`');
    expect(limits).toContain('`updated_since`');
  });

  it('is clean under Redocly recommended-strict rules', async () => {
    const config = await createConfig({
      extends: ['recommended-strict'],
      // The API is not published under a licence; there is none to name.
      rules: { 'info-license': 'off' },
    });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });
});
