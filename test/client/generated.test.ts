import { readFileSync } from 'node:fs';
import type { OpenAPI3 } from 'openapi-typescript';
import { SERVICE_VERSION } from 'venue-api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientFiles, type GeneratedFiles } from '../../scripts/client-types.ts';
import { CURRENT_VERSION } from '../../src/http/request-context.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';

/**
 * venue-api-client's generated types are committed (clients/typescript/src/generated/); they
 * must be what `npm run client:generate` would write from the served /openapi.json now, so a
 * change to a schema that is not followed by a regeneration fails CI.
 */
const GENERATED = new URL('../../clients/typescript/src/generated/', import.meta.url);

describe('venue-api-client generated types', () => {
  let t: TestApp;
  let document: OpenAPI3;
  beforeAll(async () => {
    t = await makeTestApp(ENGINES[0]!);
    document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as OpenAPI3;
  });
  afterAll(async () => t?.close());

  it('are current: regenerating from the served document changes nothing (else run npm run client:generate)', async () => {
    const files = await generateClientFiles(document);
    for (const name of Object.keys(files) as (keyof GeneratedFiles)[]) {
      expect(readFileSync(new URL(name, GENERATED), 'utf8'), name).toBe(files[name]);
    }
  });

  it('carry the version the server serves: SERVICE_VERSION is CURRENT_VERSION, through the document', () => {
    expect(document.info.version).toBe(CURRENT_VERSION);
    expect(SERVICE_VERSION).toBe(CURRENT_VERSION);
  });

  it('would be found stale after a schema change', async () => {
    const changed = structuredClone(document) as unknown as { paths: Record<string, Record<string, unknown>> };
    changed.paths['/key']!.get = { ...(changed.paths['/key']!.get as object), summary: 'Renamed in this test' };
    const files = await generateClientFiles(changed as unknown as OpenAPI3);
    expect(readFileSync(new URL('openapi.ts', GENERATED), 'utf8')).not.toBe(files['openapi.ts']);
    const bumped = await generateClientFiles({ ...document, info: { ...document.info, version: '2099-01-01' } });
    expect(readFileSync(new URL('version.ts', GENERATED), 'utf8')).not.toBe(bumped['version.ts']);
  });

  it('would be found stale after a webhook payload changed, or an event type came or went', async () => {
    type Hooks = Record<string, { post: { requestBody: { content: { 'application/json': { schema: any } } } } }>;
    const hooks = () => structuredClone((document as unknown as { webhooks: Hooks }).webhooks);
    const payload = hooks();
    const deleted = payload['customer.deleted']!.post.requestBody.content['application/json'].schema;
    deleted.properties.data.properties.object.properties.deleted_at = { type: 'string', description: 'New.' };
    const withField = await generateClientFiles({ ...document, webhooks: payload } as OpenAPI3);
    expect(withField['openapi.ts']).toContain('deleted_at');
    expect(readFileSync(new URL('openapi.ts', GENERATED), 'utf8')).not.toBe(withField['openapi.ts']);

    const added = hooks();
    const merged = structuredClone(added['customer.updated']!);
    (merged.post as { operationId?: string }).operationId = 'webhook_customer_merged';
    added['customer.merged'] = merged;
    const withType = await generateClientFiles({ ...document, webhooks: added } as OpenAPI3);
    expect(withType['webhook-events.ts']).toContain('export type CustomerMergedEvent = Payload<"customer.merged">;');
    expect(readFileSync(new URL('webhook-events.ts', GENERATED), 'utf8')).not.toBe(withType['webhook-events.ts']);

    const fewer = hooks();
    delete fewer['webhook.test'];
    const withoutType = await generateClientFiles({ ...document, webhooks: fewer } as OpenAPI3);
    expect(withoutType['webhook-events.ts']).not.toContain('WebhookTestEvent');
  });

  it('name one event type for each entry of the webhooks section, and their union', () => {
    const generated = readFileSync(new URL('webhook-events.ts', GENERATED), 'utf8');
    const types = Object.keys((document as unknown as { webhooks: object }).webhooks);
    expect(types).toContain('customer.updated');
    for (const type of types) expect(generated).toContain(`Payload<"${type}">;`);
    const union = generated.slice(generated.indexOf('export type WebhookEvent ='));
    expect(union.match(/^ {2}\| \w+Event;?$/gm)).toHaveLength(types.length);
  });
});
