import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { changeKeyStatus, createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { runCliProcess, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * Key changes across processes: a pause, resume, revoke or expiry takes effect in every server
 * process within 5 seconds. Two real server processes on one PostgreSQL (SQLite is served
 * by one process, so this suite is PostgreSQL's).
 */
const LIMIT_MS = 5_000;

async function getKey(server: ServerProcess, secret: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${server.url}/key`, {
    headers: { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' },
  });
  const body = (await res.json()) as { code?: string };
  return { status: res.status, ...(body.code ? { code: body.code } : {}) };
}

/** Polls a server until the key answers `status`; the milliseconds it took (bounded). */
async function msUntil(server: ServerProcess, secret: string, status: number, since: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    if ((await getKey(server, secret)).status === status) return Date.now() - since;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`still not ${status} after ${Date.now() - since} ms`);
}

describe('key lifecycle across two server processes on postgres', () => {
  let storage: TestStorage;
  let servers: ServerProcess[] = [];
  let workspaceId: string;
  let secret: string;
  let keyId: string;
  const observed: Record<string, number[]> = {};

  beforeAll(async () => {
    storage = await freshStorage('postgres');
    // Made before the servers start: serve() seeds a demo workspace into an empty database.
    workspaceId = (await createWorkspace(storage, systemClock, { name: 'Two processes' })).id;
    const made = await createKey(storage, systemClock, {
      workspaceId,
      name: 'shared',
      mode: 'live',
      access: 'read',
    });
    secret = made.secret;
    keyId = made.key.id;
    servers = await Promise.all([
      startServer({ DATABASE_URL: storage.url }),
      startServer({ DATABASE_URL: storage.url }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await storage?.drop();
    console.info('propagation observed (ms):', JSON.stringify(observed));
  });

  async function within5s(label: string, status: number, since: number, key = secret) {
    const times = await Promise.all(servers.map((s) => msUntil(s, key, status, since)));
    observed[label] = times;
    for (const ms of times) expect(ms).toBeLessThan(LIMIT_MS);
  }

  const keyRow = () => storage.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();

  async function expectBoth(status: number, code?: string) {
    for (const s of servers) expect(await getKey(s, secret)).toEqual({ status, ...(code ? { code } : {}) });
  }

  it('a pause through the service on the same database is seen by both servers within 5 s, and so is the resume', async () => {
    await expectBoth(200); // cached in both processes
    let since = Date.now();
    await changeKeyStatus(storage, systemClock, keyId, 'pause', 'paused by a test');
    await within5s('pause (service)', 403, since);
    await expectBoth(403, 'key_paused');
    since = Date.now();
    await changeKeyStatus(storage, systemClock, keyId, 'resume');
    await within5s('resume (service)', 200, since);
  });

  it('a pause made by another process (the CLI) is seen by both within 5 s, with its reason and time stored', async () => {
    await expectBoth(200);
    const started = Date.now();
    const cli = await runCliProcess(['keys', 'pause', keyId, '--json'], { DATABASE_URL: storage.url });
    expect(cli.code, cli.stderr).toBe(0);
    const row = await keyRow();
    expect(row.status).toBe('paused');
    expect(row.paused_at).toBeGreaterThanOrEqual(started);
    expect(row.pause_reason).toBeTruthy();
    // Timed from the moment the pause was written, not from the CLI's start-up.
    await within5s('pause (CLI)', 403, row.paused_at!);
    await expectBoth(403, 'key_paused');
    await changeKeyStatus(storage, systemClock, keyId, 'resume');
    await within5s('resume after CLI pause (service)', 200, Date.now());
  });

  it('a revoke is seen by both within 5 s, as 401', async () => {
    await expectBoth(200);
    const cli = await runCliProcess(['keys', 'revoke', keyId, '--json'], { DATABASE_URL: storage.url });
    expect(cli.code, cli.stderr).toBe(0);
    await within5s('revoke (CLI)', 401, (await keyRow()).revoked_at!);
    await expectBoth(401, 'unauthorized');
  });

  it('a key whose expiry has passed is refused by both within 5 s, as 401', async () => {
    // Expiry against the clock, cached key and all, is proved on the injected clock in
    // lifecycle.test.ts. Real processes have no such clock, so rather than wait for an
    // instant to pass, the expiry is moved into the past as any key change is written
    // (updated_at too); both servers must pick it up and refuse the key.
    const made = await createKey(storage, systemClock, {
      workspaceId,
      name: 'brief',
      mode: 'live',
      access: 'read',
      expiresAt: Date.now() + 3_600_000,
    });
    for (const s of servers) expect((await getKey(s, made.secret)).status).toBe(200); // cached in both
    const changedAt = Date.now();
    await storage.db
      .updateTable('api_keys')
      .set({ expires_at: changedAt - 1_000, updated_at: changedAt })
      .where('id', '=', made.key.id)
      .execute();
    await within5s('expiry', 401, changedAt, made.secret);
    for (const s of servers) expect(await getKey(s, made.secret)).toEqual({ status: 401, code: 'unauthorized' });
  });
});
