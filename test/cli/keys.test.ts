import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKeySecret } from '../../src/lib/key-secret.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { cli, failedWith } from './cli.ts';

describe.each(ENGINES)('venue-api keys on %s', (engine) => {
  let storage: TestStorage;
  let workspaceId: string;
  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, Date.now, { name: 'Keyed' })).id;
  });
  afterAll(async () => storage?.drop());

  const create = (...extra: string[]) =>
    cli(storage, 'keys', 'create', '--workspace', workspaceId, '--name', 'Sync', ...extra);

  it('create --json prints the GET /key object plus the secret, whose digest is what is stored', async () => {
    const run = await create('--mode', 'test', '--access', 'read_write', '--agreed-by', 'kim@example.com', '--json');
    expect(run.code).toBe(0);
    const key = run.json();
    expect(Object.keys(key).sort()).toEqual(
      [
        'access',
        'allowed_ips',
        'can_read',
        'can_write',
        'contacts_masked',
        'expires_at',
        'id',
        'kind',
        'limits',
        'mode',
        'object',
        'secret',
      ].sort(),
    );
    expect(key).toMatchObject({
      object: 'api_key',
      kind: 'standard',
      access: 'read_write',
      mode: 'test',
      expires_at: null,
      contacts_masked: false,
    });
    expect(key.can_write).toContain('test_data.delete');
    expect(key.secret).toMatch(/^vw_test_[0-9A-Za-z]{38}$/);
    const row = await storage.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(hashKeySecret(key.secret));
    expect(row.agreed_by).toBe('kim@example.com');
  });

  it('create takes restrictions, masking, expiry and limit overrides', async () => {
    const run = await create(
      '--mode',
      'live',
      '--access',
      'read_write',
      '--restricted',
      '--can-read',
      'customers,bookings',
      '--can-write',
      'customers.update',
      '--contacts-masked',
      '--expires-at',
      '2099-01-01T00:00:00+10:00',
      '--limit',
      'requests_per_minute=50',
      '--limit',
      'page_size_max=20',
      '--json',
    );
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({
      kind: 'restricted',
      mode: 'live',
      can_read: ['customers', 'bookings'],
      can_write: ['customers.update'],
      contacts_masked: true,
      expires_at: '2098-12-31T14:00:00.000Z',
      limits: { requests_per_minute: 50, page_size_max: 20, page_size_default: 20, writes_per_minute: 60 },
    });
  });

  it('list, pause, resume and revoke print keys with their status', async () => {
    const made = (await create('--mode', 'live', '--access', 'read', '--json')).json();
    const listed = await cli(storage, 'keys', 'list', '--workspace', workspaceId, '--json');
    expect(listed.code).toBe(0);
    const keys = listed.json();
    expect(keys[0]).toMatchObject({
      id: made.id,
      object: 'api_key',
      name: 'Sync',
      status: 'active',
      access: 'read',
      mode: 'live',
    });
    expect(keys[0].secret).toBeUndefined();
    for (const [move, status] of [
      ['pause', 'paused'],
      ['resume', 'active'],
      ['revoke', 'revoked'],
    ] as const) {
      const run = await cli(storage, 'keys', move, made.id, '--json');
      expect(run.code).toBe(0);
      expect(run.json()).toMatchObject({ id: made.id, status });
    }
    const row = await storage.db
      .selectFrom('api_keys')
      .select('status')
      .where('id', '=', made.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('revoked');
    expect(failedWith(await cli(storage, 'keys', 'resume', made.id))).toMatch(/a revoked key cannot be resumed/);
  });

  it('list --json shows who created the key, who agreed to the terms and when (SPEC "Authentication" 2)', async () => {
    const made = (
      await create('--mode', 'test', '--access', 'read', '--agreed-by', 'lee@example.com', '--json')
    ).json();
    const listed = (await cli(storage, 'keys', 'list', '--workspace', workspaceId, '--json')).json();
    const key = listed.find((k: { id: string }) => k.id === made.id);
    expect(key).toMatchObject({
      created_by: 'operator CLI',
      agreed_by: 'lee@example.com',
      agreed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_used_at: null,
    });
  });

  it('prints readable text without --json, and the secret only once', async () => {
    const run = await create('--mode', 'test', '--access', 'read');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Created key key_\w{22} {2}"Sync" {2}test read standard {2}active\nSecret \(shown this once, store it now\): vw_test_\w{38}\n$/,
    );
    const listed = await cli(storage, 'keys', 'list', '--workspace', workspaceId);
    expect(listed.stdout).not.toMatch(/vw_/);
  });

  it('fails with one line and exit code 1 on bad input', async () => {
    expect(failedWith(await create('--mode', 'staging', '--access', 'read'))).toBe(
      'venue-api: --mode must be test or live',
    );
    expect(failedWith(await create('--mode', 'test', '--access', 'read', '--can-read', 'customers'))).toMatch(
      /need --restricted/,
    );
    expect(
      failedWith(await create('--mode', 'test', '--access', 'read', '--restricted', '--can-read', 'secrets')),
    ).toMatch(/unknown collection "secrets"/);
    expect(failedWith(await create('--mode', 'test', '--access', 'read', '--expires-at', 'tomorrow'))).toMatch(
      /--expires-at must be ISO 8601/,
    );
    expect(failedWith(await create('--mode', 'test', '--access', 'read', '--limit', 'bananas=3'))).toMatch(
      /unknown limit "bananas"/,
    );
    expect(
      failedWith(
        await cli(
          storage,
          'keys',
          'create',
          '--workspace',
          'wsp_0000000000000000000000',
          '--name',
          'x',
          '--mode',
          'test',
          '--access',
          'read',
        ),
      ),
    ).toMatch(/no workspace/);
    expect(failedWith(await cli(storage, 'keys', 'list', '--workspace', 'wsp_0000000000000000000000'))).toMatch(
      /no workspace/,
    );
    expect(failedWith(await cli(storage, 'keys', 'pause', 'key_0000000000000000000000'))).toBe(
      'venue-api: no key key_0000000000000000000000',
    );
  });
});
