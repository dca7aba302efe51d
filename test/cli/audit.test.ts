import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/resources/audit/audit.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { cli } from './cli.ts';

/** The CLI's actions in the audit log: `--by NAME` names the operator, else the OS user. */
describe.each(ENGINES)('CLI audit entries on %s', { timeout: 120_000 }, (engine) => {
  let storage: TestStorage;
  let workspaceId: string;
  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, Date.now, { name: 'Operated' })).id;
  });
  afterAll(async () => storage?.drop());

  it('keys create, pause and undo with --by, and revoke without it, are entries from the CLI', async () => {
    const created = await cli(
      storage,
      'keys',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'Ops key',
      '--mode',
      'test',
      '--access',
      'read',
      '--by',
      'Dana Ops',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const keyId = created.json().id as string;
    expect((await cli(storage, 'keys', 'pause', keyId, '--by', 'Dana Ops')).code).toBe(0);
    expect((await cli(storage, 'undo', keyId, '--by', 'Dana Ops', '--json')).code).toBe(0);
    expect((await cli(storage, 'keys', 'revoke', keyId, '--json')).code).toBe(0);
    const entries = (await listAudit(storage.db, workspaceId, {}, null)).entries;
    expect(entries.map((e) => [e.action, e.actor, e.source, e.target])).toEqual([
      ['key.revoked', `cli:${userInfo().username}`.toLowerCase(), 'cli', keyId],
      ['undo.run', 'dana ops', 'cli', keyId],
      ['key.paused', 'dana ops', 'cli', keyId],
      ['key.created', 'dana ops', 'cli', keyId],
    ]);
  });

  it('staff add with --by is a staff.added entry', async () => {
    const run = await cli(
      storage,
      'staff',
      'add',
      '--workspace',
      workspaceId,
      '--email',
      'new@example.com',
      '--name',
      'New',
      '--role',
      'staff',
      '--by',
      'Dana Ops',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
    const [entry] = (await listAudit(storage.db, workspaceId, { action: 'staff.added' }, null)).entries;
    expect(entry).toMatchObject({
      actor: 'dana ops',
      target: run.json().id,
      detail: { email: 'new@example.com', role: 'staff' },
    });
  });
});
