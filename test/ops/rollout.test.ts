import { randomUUID } from 'node:crypto';
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStorage } from '../../src/db/index.ts';
import { migrationProvider, migrations } from '../../src/db/migrations/index.ts';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { runCliProcess, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { emptyPostgres, freshStorage, type TestStorage } from '../helpers/storage.ts';

/** Version N+1: this build plus one migration, a test-only entry (its file says how). */
const NEXT = ['test/helpers/next-version/venue-api.mjs'];
const NEXT_MIGRATION = '999-next-version-note';
/** This build's migrations in order: the last is N's newest, the one before it "one behind". */
const NAMES = Object.keys(migrations).sort();
const LAST_OF_N = NAMES[NAMES.length - 1]!;
const ONE_BEHIND = NAMES[NAMES.length - 2]!;

const startNext = (env: Record<string, string>) =>
  startServer(env, 60_000, { entry: [...NEXT, 'serve', '--port', '0', '--host', '127.0.0.1'] });

async function migrateJson(args: string[], env: Record<string, string>, next: boolean) {
  const res = await runCliProcess(['migrate', ...args, '--json'], env, 60_000, next ? { entry: NEXT } : {});
  return { code: res.code, doc: JSON.parse(res.stdout || '{}') as Record<string, unknown>, stderr: res.stderr };
}

/**
 * A rolling upgrade and its rollback on one PostgreSQL database (docs/operations.md "Rolling
 * out a new version"): version N and N+1 serve side by side, then N alone again. A client
 * sends reads and writes throughout to whichever processes the "balancer" holds, and every
 * request is answered.
 */
describe('rolling out a new version on PostgreSQL', { timeout: 240_000 }, () => {
  let storage: TestStorage;
  let secret: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    storage = await freshStorage('postgres');
    // Limits far above what the test sends: every request is meant to reach a server's work.
    const ws = await createWorkspace(storage, systemClock, { name: 'Rollout', requestsPerMinute: 100_000 });
    const high = {
      requests_per_minute: 100_000,
      requests_per_day: 1_000_000,
      writes_per_minute: 100_000,
      writes_per_day: 1_000_000,
    };
    secret = (
      await createKey(storage, systemClock, {
        workspaceId: ws.id,
        name: 'k',
        mode: 'live',
        access: 'read_write',
        limits: high,
      })
    ).secret;
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await storage?.drop();
  });

  it('serves N and N+1 together, then rolls back to N, answering every request', async () => {
    const env = { DATABASE_URL: storage.url, DEMO: 'off', MIGRATE: 'off' };
    const balancer: ServerProcess[] = [];
    const failures: string[] = [];
    const answered = new Map<string, number>();
    let stopped = false;
    let turn = 0;
    const headers = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
    const inFlight = new Map<ServerProcess, number>();
    const send = async () => {
      const target = balancer[turn++ % balancer.length]!;
      const write = turn % 2 === 0;
      inFlight.set(target, (inFlight.get(target) ?? 0) + 1);
      const res = await fetch(
        `${target.url}/customers`,
        write
          ? {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
              body: JSON.stringify({ first_name: 'Roll', email: `${randomUUID()}@example.com` }),
            }
          : { headers },
      ).catch((err: Error) => err);
      try {
        if (res instanceof Error) failures.push(`${target.url}: ${res.message}`);
        else if (res.status !== (write ? 201 : 200)) failures.push(`${target.url}: ${res.status} ${await res.text()}`);
        else answered.set(target.url, (answered.get(target.url) ?? 0) + 1);
      } finally {
        inFlight.set(target, inFlight.get(target)! - 1);
      }
    };
    let clients: Promise<void>[] = [];
    /** Takes a process out of the balancer, lets its requests finish, then stops it. */
    const retire = async (s: ServerProcess) => {
      balancer.splice(balancer.indexOf(s), 1);
      // As a balancer does: no new requests, and the stop only once those sent are answered.
      await vi.waitFor(() => expect(inFlight.get(s) ?? 0).toBe(0), { timeout: 10_000, interval: 20 });
      expect(await s.stop()).toBe(0);
    };
    const serveAWhile = () => new Promise((r) => setTimeout(r, 1_500));
    const ready = async (s: ServerProcess) => (await fetch(`${s.url}/ready`)).status;

    try {
      // Version N serves alone.
      const n1 = await startServer(env, 60_000);
      servers.push(n1);
      balancer.push(n1);
      clients = Array.from({ length: 4 }, async () => {
        while (!stopped) await send();
      });
      await serveAWhile();

      // 1. Expand: N+1's migration runs while N serves; N stays ready on a schema one ahead.
      const up = await migrateJson([], env, true);
      expect(up.doc, up.stderr).toEqual({
        applied: [NEXT_MIGRATION],
        reverted: [],
        current: NEXT_MIGRATION,
        unknown: [],
      });
      expect(await ready(n1)).toBe(200);
      // N's own migrate leaves alone what it does not know, and says so.
      const byN = await migrateJson([], env, false);
      expect(byN.doc).toEqual({ applied: [], reverted: [], current: LAST_OF_N, unknown: [NEXT_MIGRATION] });

      // 2. N+1 joins; both serve the same database at once.
      const next = await startNext(env);
      servers.push(next);
      balancer.push(next);
      expect(await ready(next)).toBe(200);
      await serveAWhile();
      expect(answered.get(n1.url) ?? 0).toBeGreaterThan(0);
      expect(answered.get(next.url) ?? 0).toBeGreaterThan(0);

      // 3. Roll back: a fresh N starts on the newer schema, saying in its log what it ignores.
      const n2 = await startServer(env, 60_000);
      servers.push(n2);
      expect(n2.output()).toMatch(/"unknown":\["999-next-version-note"\].*does not know/);
      expect(await ready(n2)).toBe(200);
      balancer.push(n2);
      await retire(next);
      // N cannot undo a migration it does not know; N+1's CLI can.
      const refused = await migrateJson(['--down-to', LAST_OF_N], env, false);
      expect(refused.code).toBe(1);
      expect(refused.doc).toMatchObject({ error: { code: 'conflict' } });
      const down = await migrateJson(['--down-to', LAST_OF_N], env, true);
      expect(down.doc, down.stderr).toEqual({
        applied: [],
        reverted: [NEXT_MIGRATION],
        current: LAST_OF_N,
        unknown: [],
      });

      // 4. N alone again.
      const before = answered.get(n2.url) ?? 0;
      await serveAWhile();
      expect(answered.get(n2.url) ?? 0).toBeGreaterThan(before);
      expect(await ready(n1)).toBe(200);
      expect(await ready(n2)).toBe(200);
    } finally {
      stopped = true;
      await Promise.all(clients);
    }
    expect(failures).toEqual([]);
    const columns = await storage.db.introspection.getTables();
    expect(columns.find((t) => t.name === 'customers')?.columns.map((c) => c.name)).not.toContain('next_version_note');
  });
});

/** MIGRATE=off: a server migrates nothing, and is not ready until `venue-api migrate` ran. */
describe('a server with MIGRATE=off', { timeout: 180_000 }, () => {
  const dbs: Array<{ url: string; drop(): Promise<void> }> = [];
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all(dbs.map((d) => d.drop()));
  });

  it('on a schema one migration behind, listens but is not ready, says why, and is ready once migrate ran', async () => {
    const db = await emptyPostgres();
    dbs.push(db);
    const behind = await openStorage(db.url);
    await new Migrator({ db: behind.db, provider: migrationProvider }).migrateTo(ONE_BEHIND);
    await behind.close();

    const env = { DATABASE_URL: db.url, DEMO: 'off', MIGRATE: 'off' };
    const server = await startServer(env, 60_000);
    servers.push(server);
    expect(server.output()).toContain(`not ready: the database lacks migrations this version needs (${LAST_OF_N})`);
    const before = await fetch(`${server.url}/ready`);
    expect(before.status).toBe(503);
    expect(((await before.json()) as { detail: string }).detail).toMatch(
      new RegExp(`${LAST_OF_N}.*run venue-api migrate`),
    );
    // The API answers 503, not a 500 of a statement on the old schema.
    const refused = await fetch(`${server.url}/customers`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { code: string; detail: string }).detail).toMatch(/run venue-api migrate/);
    // Any other command refuses too, rather than migrating by the way.
    const keys = await runCliProcess(['keys', 'list', '--workspace', 'wsp_x', '--json'], env);
    expect(keys.code).toBe(1);
    expect(JSON.parse(keys.stdout)).toMatchObject({ error: { code: 'conflict' } });

    const migrated = await runCliProcess(['migrate', '--json'], env, 60_000);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout)).toMatchObject({ applied: [LAST_OF_N] });
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    // Within a few seconds the API serves again: here, a 401 for the missing key.
    await vi.waitFor(async () => expect((await fetch(`${server.url}/customers`)).status).toBe(401), {
      timeout: 15_000,
      interval: 500,
    });
  });

  it('on a database with no schema, waits for migrate before it listens', async () => {
    const db = await emptyPostgres();
    dbs.push(db);
    const env = { DATABASE_URL: db.url, DEMO: 'off', MIGRATE: 'off' };
    const starting = startServer(env, 90_000);
    await new Promise((r) => setTimeout(r, 3_000));
    const migrated = await runCliProcess(['migrate', '--json'], env, 60_000);
    expect(migrated.code, migrated.stderr).toBe(0);
    const server = await starting;
    servers.push(server);
    expect(server.output()).toMatch(/waiting for it before listening \(MIGRATE=off\)/);
    expect((await fetch(`${server.url}/ready`)).status).toBe(200);
  });
});
