import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { cli, failedWith } from './cli.ts';

describe.each(ENGINES)('venue-api workspace on %s', (engine) => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await freshStorage(engine);
  });
  afterAll(async () => storage?.drop());

  it('create --json prints the workspace with its id and name, and stores it', async () => {
    const run = await cli(storage, 'workspace', 'create', '--name', 'Harbour Group', '--json');
    expect(run.code).toBe(0);
    const ws = run.json();
    expect(ws).toEqual({
      id: expect.stringMatching(/^wsp_[0-9A-Za-z]{22}$/),
      name: 'Harbour Group',
      limits: { requests_per_minute: 1200 },
      created_at: expect.any(String),
    });
    expect((await getWorkspace(storage.db, ws.id)).name).toBe('Harbour Group');
  });

  it('create --limit and set-limit change the workspace limit', async () => {
    const made = (
      await cli(storage, 'workspace', 'create', '--name', 'Big tenant', '--limit', 'requests_per_minute=5000', '--json')
    ).json();
    expect(made.limits).toEqual({ requests_per_minute: 5000 });
    const run = await cli(storage, 'workspace', 'set-limit', made.id, 'requests_per_minute=600', '--json');
    expect(run.code).toBe(0);
    expect(run.json()).toMatchObject({ id: made.id, limits: { requests_per_minute: 600 } });
    expect((await getWorkspace(storage.db, made.id)).limits.requests_per_minute).toBe(600);
  });

  it('prints readable text without --json', async () => {
    const run = await cli(storage, 'workspace', 'create', '--name', 'Plain');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Created workspace wsp_\w{22} {2}"Plain" {2}requests_per_minute=1200\n$/);
  });

  it('fails with one line and exit code 1 on a usage or domain error', async () => {
    expect(failedWith(await cli(storage, 'workspace', 'create', '--json'))).toMatch(/required option '--name <name>'/);
    expect(failedWith(await cli(storage, 'workspace', 'create', '--name', 'X', '--limit', 'lots'))).toMatch(
      /NAME=VALUE/,
    );
    expect(failedWith(await cli(storage, 'workspace', 'create', '--name', 'X', '--limit', 'writes_per_day=5'))).toMatch(
      /one limit, requests_per_minute/,
    );
    expect(
      failedWith(await cli(storage, 'workspace', 'set-limit', 'wsp_0000000000000000000000', 'requests_per_minute=5')),
    ).toBe('venue-api: no workspace wsp_0000000000000000000000');
    expect(failedWith(await cli(storage, 'workspace', 'frobnicate'))).toMatch(/unknown command 'frobnicate'/);
  });
});
