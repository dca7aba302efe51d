import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cliJson, startServer } from '../helpers/server-process.ts';
import { emptyPostgres } from '../helpers/storage.ts';

const run = promisify(execFile);

/** docs/operations.md "PostgreSQL: pg_dump and pg_restore", followed word for word: the restored database serves the same key. */
describe('a pg_dump of a seeded workspace, restored into a new database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-pgdump-'));
  const made: { drop(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(made.map((db) => db.drop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (url: string, ...args: string[]) => cliJson({ DATABASE_URL: url }, ...args);

  it('serves the same key and customers from the restored database', async () => {
    const source = await emptyPostgres();
    made.push(source);
    const ws = await cli(source.url, 'workspace', 'create', '--name', 'Dumped');
    const key = await cli(
      source.url,
      ...`keys create --workspace ${ws.id} --name k --mode live --access read_write`.split(' '),
    );
    await cli(source.url, 'seed', '--workspace', ws.id, '--customers', '200');

    const file = join(dir, 'venue.dump');
    await run('pg_dump', ['--format=custom', `--file=${file}`, source.url]);
    const target = await emptyPostgres(); // createdb's work: a new, empty database
    made.push(target);
    await run('pg_restore', [`--dbname=${target.url}`, '--no-owner', '--exit-on-error', file]);

    const read = async (url: string) => {
      const server = await startServer({ DATABASE_URL: url, DEMO: 'off', MIGRATE: 'off' });
      try {
        const get = (path: string) =>
          fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key.secret}` } }).then(async (res) => ({
            status: res.status,
            body: (await res.json()) as Record<string, unknown>,
          }));
        return { key: await get('/key'), customers: await get('/customers?limit=100') };
      } finally {
        await server.stop();
      }
    };
    const before = await read(source.url);
    const after = await read(target.url);
    expect(after.key.status).toBe(200);
    expect(after.key.body.id).toBe(key.id);
    expect(after.customers.status).toBe(200);
    expect((after.customers.body.data as unknown[]).length).toBe(100);
    expect(after.customers.body).toEqual(before.customers.body);
  }, 180_000);
});
