import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { cli, failedWith } from '../cli/cli.ts';

const ENDPOINT_FIELDS = [
  'contacts_masked',
  'created_at',
  'created_by',
  'events',
  'id',
  'mode',
  'object',
  'status',
  'url',
];

describe.each(ENGINES)('venue-api webhooks on %s', (engine) => {
  let storage: TestStorage;
  let workspaceId: string;
  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, Date.now, { name: 'Hooked' })).id;
  });
  afterAll(async () => storage?.drop());

  const run = (...args: string[]) => cli(storage, 'webhooks', ...args);

  it('create --json prints the endpoint plus its secret, shown once; list, disable, enable, delete as DECISIONS says', async () => {
    const made = await run(
      'create',
      '--workspace',
      workspaceId,
      '--url',
      'https://93.184.216.34/hooks',
      '--mode',
      'live',
      '--events',
      'customer.created,customer.deleted',
      '--contacts-masked',
      '--json',
    );
    expect(made.code).toBe(0);
    const endpoint = made.json();
    expect(Object.keys(endpoint).sort()).toEqual([...ENDPOINT_FIELDS, 'secret'].sort());
    expect(endpoint).toMatchObject({
      object: 'webhook_endpoint',
      url: 'https://93.184.216.34/hooks',
      mode: 'live',
      events: ['customer.created', 'customer.deleted'],
      contacts_masked: true,
      status: 'enabled',
      created_by: 'operator CLI',
    });
    expect(endpoint.id).toMatch(/^wh_[0-9A-Za-z]{22}$/);
    expect(Buffer.from(endpoint.secret.replace(/^whsec_/, ''), 'base64')).toHaveLength(24);

    const listed = (await run('list', '--workspace', workspaceId, '--json')).json();
    expect(listed).toHaveLength(1);
    expect(Object.keys(listed[0]).sort()).toEqual(ENDPOINT_FIELDS.sort());

    expect((await run('disable', endpoint.id, '--json')).json().status).toBe('disabled');
    expect((await run('enable', endpoint.id, '--json')).json().status).toBe('enabled');
    expect((await run('deliveries', endpoint.id, '--json')).json()).toEqual([]);
    const rotated = (await run('rotate-secret', endpoint.id, '--json')).json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect((await run('send-test', endpoint.id, '--json')).json()).toMatchObject({ type: 'webhook.test' });
    const deliveries = (await run('deliveries', endpoint.id, '--json')).json();
    expect(deliveries).toHaveLength(1);
    expect(Object.keys(deliveries[0]).sort()).toEqual(
      ['attempts', 'created_at', 'event', 'last_error', 'last_status', 'next_attempt_at', 'status', 'type'].sort(),
    );
    expect(deliveries[0]).toMatchObject({ type: 'webhook.test', status: 'pending', attempts: 0 });
    expect((await run('delete', endpoint.id, '--json')).json()).toEqual({
      id: endpoint.id,
      object: 'webhook_endpoint',
      deleted: true,
    });
    expect((await run('list', '--workspace', workspaceId, '--json')).json()).toEqual([]);
  });

  it('refuses http, private addresses and unknown event types in one line', async () => {
    const create = (url: string, ...extra: string[]) =>
      run('create', '--workspace', workspaceId, '--url', url, '--mode', 'test', ...extra);
    expect(failedWith(await create('http://93.184.216.34/'))).toMatch(/https only/);
    expect(failedWith(await create('https://127.0.0.1/'))).toMatch(/not a public address/);
    expect(failedWith(await create('https://169.254.169.254/'))).toMatch(/metadata/);
    expect(failedWith(await create('https://93.184.216.34/', '--events', 'customer.exploded'))).toMatch(/unknown type/);
    expect(failedWith(await run('disable', 'wh_0000000000000000000000'))).toMatch(/No webhook endpoint/);
  });
});
