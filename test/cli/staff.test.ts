import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/lib/password.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { cli, failedWith } from './cli.ts';

describe.each(ENGINES)('venue-api staff on %s', (engine) => {
  let storage: TestStorage;
  let workspaceId: string;
  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage.db, Date.now, { name: 'Staffed' })).id;
  });
  afterAll(async () => storage?.drop());

  it('add --json prints the staff member and stores a password that verifies', async () => {
    const run = await cli(
      storage,
      'staff',
      'add',
      '--workspace',
      workspaceId,
      '--email',
      'Kim@Example.com',
      '--name',
      'Kim',
      '--role',
      'key_manager',
      '--password',
      'correct horse',
      '--json',
    );
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({
      id: expect.stringMatching(/^stf_\w{22}$/),
      workspace_id: workspaceId,
      email: 'kim@example.com',
      name: 'Kim',
      role: 'key_manager',
    });
    const row = await storage.db
      .selectFrom('staff')
      .selectAll()
      .where('email', '=', 'kim@example.com')
      .executeTakeFirstOrThrow();
    expect(verifyPassword('correct horse', row.password_hash)).toBe(true);
  });

  it('fails with exit code 1 for a taken email, an unknown role or a short password', async () => {
    const base = ['staff', 'add', '--workspace', workspaceId, '--name', 'Sam'];
    expect(failedWith(await cli(storage, ...base, '--email', 'kim@example.com', '--role', 'staff'))).toMatch(
      /already staff/,
    );
    expect(failedWith(await cli(storage, ...base, '--email', 'sam@example.com', '--role', 'boss'))).toMatch(
      /role must be one of owner, key_manager, staff/,
    );
    expect(
      failedWith(await cli(storage, ...base, '--email', 'sam@example.com', '--role', 'staff', '--password', 'short')),
    ).toMatch(/8 characters/);
    expect(
      failedWith(
        await cli(storage, 'staff', 'add', '--workspace', workspaceId, '--email', 'x@example.com', '--name', 'X'),
      ),
    ).toMatch(/--role/);
  });
});
