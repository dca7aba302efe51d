import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { keyActor } from '../../src/resources/actor.model.ts';
import { findKeyById } from '../../src/resources/keys/key.repo.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import * as r from '../import/records.ts';
import { runCliProcess, startServer } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';
import { writesAs } from '../helpers/writes.ts';

/**
 * The CLI and the server as processes on a full disk: each runs under a file-size limit of
 * zero (test/helpers/server-process.ts `fullDisk`), so SQLite's COMMIT cannot append to
 * the WAL and fails as it would on a full disk. A command whose write was not stored exits
 * 1 with its error and prints no secret; the server starts, serves reads, answers writes
 * 503 with Retry-After and takes writes again once the limit is lifted, without a restart.
 */
describe('the CLI and the server on a full disk (SQLite)', { timeout: 180_000 }, () => {
  let storage: TestStorage;
  let workspaceId: string;
  let keyId: string;
  let secret: string;

  const TABLES = ['workspaces', 'api_keys', 'staff', 'customers', 'change_log'] as const;
  const count = async (table: (typeof TABLES)[number]) =>
    Number(
      (
        await storage.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const counts = async () => Promise.all(TABLES.map(count));

  /** The WAL emptied, so any COMMIT must grow it; this test's own connection keeps it and its index open. */
  const emptyWal = () => sql`pragma wal_checkpoint(TRUNCATE)`.execute(storage.db);

  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    workspaceId = (await createWorkspace(storage, systemClock, { name: 'Full' })).id;
    const made = await createKey(storage, systemClock, {
      workspaceId,
      name: 'writer',
      mode: 'live',
      access: 'read_write',
    });
    keyId = made.key.id;
    secret = made.secret;
    // A change by the key, so `undo` has something to write.
    const writes = writesAs(storage.writes, keyActor((await findKeyById(storage.db, keyId))!, 'req_full', systemClock));
    await writes.create({ first_name: 'Before' });
    // Fresh planner statistics: a process's open-time `pragma optimize` then has nothing to
    // write, so each command gets as far as its own COMMIT, where a full disk bites.
    await sql`analyze`.execute(storage.db);
  });
  afterAll(async () => storage?.drop());

  it('every writing command exits 1 with service_unavailable; keys create prints no secret; nothing is stored', async () => {
    const file = join(dirname(storage.url), 'import.ndjson');
    writeFileSync(file, r.ndjson([r.tag(), r.customer({ email: 'imported@example.com' })]));
    const before = await counts();
    const commands = [
      ['workspace', 'create', '--name', 'Nowhere'],
      ['keys', 'create', '--workspace', workspaceId, '--name', 'lost', '--mode', 'test', '--access', 'read_write'],
      ['staff', 'add', '--workspace', workspaceId, '--email', 'lost@example.com', '--name', 'Lost', '--role', 'staff'],
      ['seed', '--workspace', workspaceId, '--customers', '5'],
      ['import', '--workspace', workspaceId, file],
      ['undo', keyId],
    ];
    for (const args of commands) {
      await emptyWal();
      const run = await runCliProcess([...args, '--json'], { DATABASE_URL: storage.url }, 60_000, { fullDisk: true });
      const what = `${args.slice(0, 2).join(' ')}: ${run.stdout}${run.stderr}`;
      expect(run.code, what).toBe(1);
      expect(JSON.parse(run.stdout), what).toEqual({
        error: { code: 'service_unavailable', message: expect.any(String) },
      });
      expect(run.stdout + run.stderr, what).not.toMatch(/vw_(test|live)_/);
    }
    expect(await counts()).toEqual(before);
  });

  it('the server starts, serves reads, answers writes 503 with Retry-After, and recovers once there is room', async () => {
    await emptyWal();
    const server = await startServer({ DATABASE_URL: storage.url }, 30_000, { fullDisk: true });
    try {
      const headers = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
      const list = await fetch(`${server.url}/customers`, { headers });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);

      const create = (key: string) =>
        fetch(`${server.url}/customers`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ first_name: 'Full' }),
        });
      const key = randomUUID();
      const refused = await create(key);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await refused.json()) as { code: string }).code).toBe('service_unavailable');
      expect(await count('customers')).toBe(1);

      // Room again (the soft limit lifted on the running process): the same request succeeds.
      execFileSync('prlimit', ['--pid', String(server.child.pid), '--fsize=unlimited']);
      const stored = await create(key);
      expect(stored.status).toBe(201);
      expect(await count('customers')).toBe(2);
      expect(server.child.exitCode).toBeNull();
    } finally {
      await server.stop();
    }
  });
});
