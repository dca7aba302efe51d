import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/lib/password.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { cli, failedWith } from './cli.ts';

// Each command hashes a password at the full scrypt cost in a process of its own: seconds on a loaded machine.
describe.each(ENGINES)('venue-api staff on %s', { timeout: 120_000 }, (engine) => {
  let storage: TestStorage;
  let workspaceId: string;
  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, Date.now, { name: 'Staffed' })).id;
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
    expect(await verifyPassword('correct horse', row.password_hash)).toBe(true);
  });

  it('set-password sets a password that verifies and ends every console session of that person', async () => {
    const kim = await storage.db
      .selectFrom('staff')
      .select('id')
      .where('email', '=', 'kim@example.com')
      .executeTakeFirstOrThrow();
    const now = Date.now();
    for (const token_hash of ['a', 'b'])
      await storage.db
        .insertInto('console_sessions')
        .values({ token_hash, staff_id: kim.id, created_at: now, last_seen_at: now, expires_at: now + 60_000 })
        .execute();
    const run = await cli(
      storage,
      'staff',
      'set-password',
      '--workspace',
      workspaceId,
      '--email',
      'KIM@example.com',
      '--password',
      'battery staple',
      '--json',
    );
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ id: kim.id, email: 'kim@example.com', sessions_ended: 2 });
    const row = await storage.db.selectFrom('staff').selectAll().where('id', '=', kim.id).executeTakeFirstOrThrow();
    expect(await verifyPassword('battery staple', row.password_hash)).toBe(true);
    expect(await verifyPassword('correct horse', row.password_hash)).toBe(false);
    const left = await storage.db
      .selectFrom('console_sessions')
      .select('token_hash')
      .where('staff_id', '=', kim.id)
      .execute();
    expect(left).toEqual([]);
    const base = ['staff', 'set-password', '--workspace', workspaceId];
    expect(
      failedWith(await cli(storage, ...base, '--email', 'nobody@example.com', '--password', 'long enough')),
    ).toMatch(/not staff/);
    expect(failedWith(await cli(storage, ...base, '--email', 'kim@example.com', '--password', 'short'))).toMatch(
      /8 characters/,
    );
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
