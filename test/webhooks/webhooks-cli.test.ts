import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvents } from '../../src/resources/webhook-events/event.repo.ts';
import { createEndpoint } from '../../src/resources/webhooks/webhook.service.ts';
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
    expect(failedWith(await create('http://93.184.216.34/'))).toMatch(
      /https only; WEBHOOK_ALLOW_HTTP=on allows http:\/\/.*your shell for the CLI/,
    );
    expect(failedWith(await create('https://127.0.0.1/'))).toMatch(/not a public address/);
    expect(failedWith(await create('https://169.254.169.254/'))).toMatch(/metadata/);
    expect(failedWith(await create('https://93.184.216.34/', '--events', 'customer.exploded'))).toMatch(/unknown type/);
    expect(failedWith(await run('disable', 'wh_0000000000000000000000'))).toMatch(/No webhook endpoint/);
  });

  it('resend --since makes the failed deliveries since the instant due again, {"resent": N}; bad input exits 1 and changes nothing', async () => {
    const now = Date.now();
    const { endpoint } = await createEndpoint(
      storage,
      () => now,
      { allowHttp: true, allowPrivate: true },
      { workspaceId, url: 'http://127.0.0.1:9/cli', mode: 'test', contactsMasked: false, createdBy: 'test' },
    );
    const made = [3, 2, 1].map((h) => ({
      type: 'customer.created',
      at: now - h * 3_600_000,
      object: { id: `cus_${h}` },
    }));
    await storage.write((tx) => recordEvents(tx, storage.engine, { workspaceId, livemode: false }, made));
    await storage.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', attempts: 8, next_attempt_at: null })
      .execute();
    const statuses = async () =>
      (
        await storage.db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('endpoint_id', '=', endpoint.id)
          .orderBy('created_at')
          .execute()
      ).map((d) => d.status);
    const entries = () =>
      storage.db.selectFrom('audit_log').selectAll().where('action', '=', 'webhook.resent').orderBy('at').execute();

    const iso = (ms: number) => new Date(ms).toISOString();
    // Neither, both, and instants without an offset or that do not exist: one line, exit 1, nothing done.
    expect(failedWith(await run('resend', endpoint.id))).toMatch(/an event id \(whe_…\) or --since ISO/);
    expect(failedWith(await run('resend', endpoint.id, 'whe_0000000000000000000000', '--since', iso(now)))).toMatch(
      /not both/,
    );
    expect(failedWith(await run('resend', endpoint.id, '--since', 'yesterday'))).toMatch(
      /--since must be ISO 8601 with an offset/,
    );
    expect(failedWith(await run('resend', endpoint.id, '--since', '2026-10-08T00:00:00'))).toMatch(/with an offset/);
    expect(failedWith(await run('resend', endpoint.id, '--since', '2026-02-30T00:00:00Z'))).toMatch(/with an offset/);
    expect(failedWith(await run('resend', 'wh_0000000000000000000000', '--since', iso(now)))).toMatch(
      /No webhook endpoint/,
    );
    expect(await statuses()).toEqual(['failed', 'failed', 'failed']);
    expect(await entries()).toEqual([]);

    const resent = await run(
      'resend',
      endpoint.id,
      '--since',
      iso(now - 2 * 3_600_000),
      '--by',
      'Ops Person',
      '--json',
    );
    expect(resent.code, resent.stderr).toBe(0);
    expect(resent.json()).toEqual({ resent: 2 });
    expect(await statuses()).toEqual(['failed', 'pending', 'pending']);
    const [entry] = await entries();
    expect(entry).toMatchObject({ target: endpoint.id, actor: 'ops person', source: 'cli' });
    expect(JSON.parse(entry!.detail)).toEqual({ since: iso(now - 2 * 3_600_000), resent: 2 });

    // An offset other than Z names the same instant; without --json, a sentence.
    const plain = await run('resend', endpoint.id, '--since', '2000-01-01T10:00:00+10:00');
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.trim()).toBe(
      `Queued 1 failed delivery to ${endpoint.id} since 2000-01-01T10:00:00+10:00 again.`,
    );
    expect(await statuses()).toEqual(['pending', 'pending', 'pending']);
    expect(await entries()).toHaveLength(2);
  });
});
