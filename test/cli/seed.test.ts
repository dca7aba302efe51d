import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { cli, failedWith } from './cli.ts';

const COLLECTIONS = [
  'venues',
  'activities',
  'packages',
  'events',
  'tags',
  'lists',
  'customers',
  'tag_memberships',
  'list_memberships',
  'bookings',
  'orders',
  'tickets',
  'gift_cards',
];

describe.each(ENGINES)('venue-api seed on %s', (engine) => {
  let storage: TestStorage;
  let workspaceId: string;
  beforeAll(async () => {
    storage = await freshStorage(engine);
    workspaceId = (await createWorkspace(storage, Date.now, { name: 'Seeded' })).id;
  });
  afterAll(async () => storage?.drop());

  it('seed --json prints the count of every collection it filled, matching what was stored', async () => {
    const run = await cli(storage, 'seed', '--workspace', workspaceId, '--customers', '60', '--json');
    expect(run.code).toBe(0);
    // Not a terminal and --json: no progress bar on stderr.
    expect(run.stderr).toBe('');
    const counts = run.json();
    expect(Object.keys(counts)).toEqual(COLLECTIONS);
    expect(counts.customers).toBe(60);
    const stored = await storage.db
      .selectFrom('bookings')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(counts.bookings);
  });

  it('defaults to 200 customers and summarises in plain text', async () => {
    const run = await cli(storage, 'seed', '--workspace', workspaceId);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Seeded:\n/);
    expect(run.stdout).toMatch(/ {2}customers {9}200\n/);
    expect(run.stdout).toMatch(/rows in [\d.]+ s \([\d,]+ customers\/s, [\d,]+ rows\/s\)\n$/);
  });

  it('fails with exit code 1 for an unknown workspace or a bad count', async () => {
    expect(failedWith(await cli(storage, 'seed', '--workspace', 'wsp_0000000000000000000000'))).toBe(
      'venue-api: no workspace wsp_0000000000000000000000',
    );
    expect(failedWith(await cli(storage, 'seed', '--workspace', workspaceId, '--customers', '0'))).toMatch(
      /whole number of 1 or more/,
    );
    expect(failedWith(await cli(storage, 'seed', '--customers', '5'))).toMatch(/--workspace/);
  });
});
