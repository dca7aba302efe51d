import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';
import { cli, failedWith } from './cli.ts';

/**
 * DECISIONS "Operator CLI": `--json` prints one JSON document, a failure included:
 * {"error":{"code","message"}} on stdout, with the usual line on stderr and exit code 1.
 */
describe('venue-api failures with --json', { timeout: 60_000 }, () => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await freshStorage('sqlite');
  });
  afterAll(async () => storage?.drop());

  it("a domain error: the API's code and its detail", async () => {
    const run = await cli(storage, 'undo', 'key_0000000000000000000000', '--json');
    expect(failedWith(run)).toBe('venue-api: No key key_0000000000000000000000.');
    expect(run.json()).toEqual({ error: { code: 'not_found', message: 'No key key_0000000000000000000000.' } });
  });

  it("a usage error: invalid_request, with commander's line on stderr", async () => {
    const run = await cli(storage, 'import', '--workspace', 'wsp_0000000000000000000000', '--json');
    expect(failedWith(run)).toMatch(/missing required argument 'file'/);
    expect(run.json()).toEqual({ error: { code: 'invalid_request', message: "missing required argument 'file'" } });
  });

  it('a database that cannot serve now: service_unavailable', async () => {
    const run = await runCliProcess(['keys', 'list', '--workspace', 'wsp_0000000000000000000000', '--json'], {
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: 'service_unavailable', message: expect.stringMatching(/ECONNREFUSED/) },
    });
  });

  it('anything unexpected: internal_error', async () => {
    // A directory where the database file should be: SQLite cannot open it, and nothing says why.
    const run = await runCliProcess(['keys', 'list', '--workspace', 'wsp_0000000000000000000000', '--json'], {
      DATABASE_URL: dirname(storage.url),
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(run.stdout)).toEqual({ error: { code: 'internal_error', message: expect.any(String) } });
  });

  it('without --json a failure prints nothing on stdout', async () => {
    const run = await cli(storage, 'undo', 'key_0000000000000000000000');
    expect(failedWith(run)).toBe('venue-api: No key key_0000000000000000000000.');
    expect(run.stdout).toBe('');
  });
});
