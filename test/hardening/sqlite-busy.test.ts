import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { runCliProcess } from '../helpers/server-process.ts';
import { ENGINES } from '../helpers/storage.ts';
import { countRows, createCustomer, makeTag, roomy } from '../helpers/writes.ts';

/**
 * Another process holding SQLite's write lock (the CLI, the sqlite3 shell)
 * costs the API no answer. The server waits only SQLITE_BUSY_TIMEOUT_MS for the lock; a write
 * that cannot get it is a 503 service_unavailable with Retry-After and writes nothing, its
 * Idempotency-Key still usable; reads and /health go on (WAL lets readers past a writer).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A second process that takes the write lock (BEGIN IMMEDIATE) and holds it until told to let go. */
async function holdWriteLock(path: string): Promise<{ release(): Promise<void> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    db.prepare("insert into workspaces (id, name, created_at, updated_at) values ('wsp_heldbyanother0000000', 'held', 0, 0)").run();
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
  `;
  const child: ChildProcess = spawn(process.execPath, ['-e', script, path], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`lock holder exited (${code}): ${err}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    async release() {
      child.stdin!.write('go\n');
      await exited;
    },
  };
}

describe.skipIf(!ENGINES.includes('sqlite'))('a busy SQLite file', () => {
  let t: TestApp;
  let lock: { release(): Promise<void> } | null = null;
  beforeAll(async () => {
    t = await makeTestApp('sqlite');
    await roomy(t);
  });
  afterEach(async () => {
    await lock?.release();
    lock = null;
  });
  afterAll(async () => t?.close());

  const busyProblem = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => {
    expect(res.statusCode).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json()).toMatchObject({ status: 503, code: 'service_unavailable', request_id: expect.any(String) });
  };

  it('SQLITE_BUSY_TIMEOUT_MS is short by default and bounded', () => {
    expect(loadConfig({}).sqliteBusyTimeoutMs).toBe(50);
    expect(() => loadConfig({ SQLITE_BUSY_TIMEOUT_MS: '5000' })).toThrow(/SQLITE_BUSY_TIMEOUT_MS/);
  });

  it('a POST is a 503 with Retry-After, writes nothing, and its Idempotency-Key works once the lock is gone', async () => {
    const before = {
      customers: await countRows(t, 'customers'),
      changes: await countRows(t, 'change_log'),
      keys: await countRows(t, 'idempotency_keys'),
    };
    lock = await holdWriteLock(t.storage.url);
    const key = randomUUID();
    const send = () =>
      t.call(t.keys.test, {
        method: 'POST',
        url: '/customers',
        payload: { first_name: 'Patient' },
        headers: { 'idempotency-key': key },
      });
    busyProblem(await send());
    busyProblem(await send());
    expect({
      customers: await countRows(t, 'customers'),
      changes: await countRows(t, 'change_log'),
      keys: await countRows(t, 'idempotency_keys'),
    }).toEqual(before);

    await lock.release();
    lock = null;
    const retried = await send();
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await countRows(t, 'customers')).toBe(before.customers + 1);
    const replay = await send();
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('PATCH, DELETE and tag writes are 503 and change nothing; reads, /health and /ready answer meanwhile', async () => {
    const c = await createCustomer(t, t.keys.test, { last_name: 'Before' });
    const tag = await makeTag(t, 'Busy');
    lock = await holdWriteLock(t.storage.url);

    busyProblem(
      await t.call(t.keys.test, { method: 'PATCH', url: `/customers/${c.id}`, payload: { last_name: 'After' } }),
    );
    busyProblem(await t.call(t.keys.test, { method: 'DELETE', url: `/customers/${c.id}` }));
    busyProblem(
      await t.call(t.keys.test, {
        method: 'POST',
        url: `/customers/${c.id}/tags`,
        payload: { tag },
        headers: { 'idempotency-key': randomUUID() },
      }),
    );

    const read = await t.call(t.keys.test, { method: 'GET', url: `/customers/${c.id}` });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ last_name: 'Before', version: c.version, tags: [] });
    expect((await t.call(t.keys.test, { method: 'GET', url: '/customers?limit=5' })).statusCode).toBe(200);
    expect((await t.call(null, { method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await t.call(null, { method: 'GET', url: '/ready' })).statusCode).toBe(200);

    await lock.release();
    lock = null;
    const patched = await t.call(t.keys.test, {
      method: 'PATCH',
      url: `/customers/${c.id}`,
      payload: { last_name: 'After' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().version).toBe(String(Number(c.version) + 1));
  });

  it('a seed by the CLI writes in short transactions: the server writes between them while it runs', async () => {
    const seeded = await createWorkspace(t.storage, t.clock.fn, { name: 'Seeded' });
    const total = 4_000;
    const seededCustomers = async () =>
      Number(
        (
          await t.storage.db
            .selectFrom('customers')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .where('workspace_id', '=', seeded.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    let done = false;
    const seed = runCliProcess(['seed', '--workspace', seeded.id, '--customers', String(total), '--json'], {
      DATABASE_URL: t.storage.url,
    }).finally(() => (done = true));
    // A write of the server's, made after the seed's first commit and before its last: with the
    // whole seed in one transaction, the count would jump from none to all and this never happen.
    let between: { before: number; after: number; status: number } | null = null;
    const statuses = new Set<number>();
    while (!done && between === null) {
      const before = await seededCustomers();
      if (before === 0 || before === total) {
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      const res = await t.call(t.keys.test, {
        method: 'POST',
        url: '/customers',
        payload: { first_name: 'Between' },
        headers: { 'idempotency-key': randomUUID() },
      });
      statuses.add(res.statusCode);
      if (res.statusCode === 503) continue;
      const after = await seededCustomers();
      if (after < total) between = { before, after, status: res.statusCode };
    }
    const result = await seed;
    expect(result.code, result.stderr).toBe(0);
    expect(between, `statuses seen: ${[...statuses].join(', ')}`).toMatchObject({ status: 201 });
    expect(await seededCustomers()).toBe(total);
  });
});
