import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.ts';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { addCustomers } from '../jobs/activity-fixtures.ts';
import { runCliProcess, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { emptyPostgres, freshStorage, type TestStorage } from '../helpers/storage.ts';

/** Polls (bounded) until `condition` holds; fails with the server's output. */
async function until(condition: () => Promise<boolean>, what: string, server: ServerProcess, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One GET on a connection of its own: its status, or the socket error's code (TIMEOUT after 10 s). */
function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.get(
      url,
      { agent: false, timeout: 10_000, headers: { connection: 'close', ...headers } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.on('timeout', () => {
      req.destroy();
      resolve({ error: 'TIMEOUT' });
    });
  });
}

/**
 * The pids that answer /health within `tries` requests. A connection handed to a worker the
 * moment it is killed is lost with it (SIGKILL allows nothing else), so failures are skipped.
 */
async function answeringPids(url: string, tries = 20): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let i = 0; i < tries; i++) {
    const res = await get(`${url}/health`);
    if ('status' in res && res.status === 200) pids.add((JSON.parse(res.body) as { pid: number }).pid);
  }
  return pids;
}

/**
 * `serve --workers N` (docs/operations.md "Several processes"): one supervisor, N workers on
 * one port, each a process of its own (GET /health names the pid that answered).
 */
describe('serve --workers on PostgreSQL', { timeout: 120_000 }, () => {
  let storage: TestStorage;
  let server: ServerProcess | null = null;
  let secret: string;

  beforeAll(async () => {
    storage = await freshStorage('postgres');
    // Limits far above what the load below sends, so every answer it counts is the server's own, not a 429.
    const ws = await createWorkspace(storage, systemClock, { name: 'Workers', requestsPerMinute: 1_000_000 });
    const limits = { requests_per_minute: 1_000_000, requests_per_day: 10_000_000 };
    secret = (
      await createKey(storage, systemClock, { workspaceId: ws.id, name: 'k', mode: 'live', access: 'read', limits })
    ).secret;
    await addCustomers(storage.db, ws.id, 5, Date.now());
    server = await startServer(
      { DATABASE_URL: storage.url, WORKERS: '2', DEMO: 'off', SHUTDOWN_DELAY_MS: '3000' },
      60_000,
    );
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
    await storage?.drop();
  });

  it('answers on one port from two processes, and replaces a worker killed with SIGKILL', async () => {
    const s = server!;
    await until(async () => (await answeringPids(s.url)).size === 2, 'two workers answering', s);
    const before = await answeringPids(s.url);
    expect(before.has(s.child.pid!)).toBe(false); // the supervisor serves nothing itself

    const victim = [...before][0]!;
    process.kill(victim, 'SIGKILL');
    await until(
      async () => {
        const now = await answeringPids(s.url);
        return now.size === 2 && !now.has(victim);
      },
      'the killed worker to be replaced',
      s,
    );
    expect(s.output()).toMatch(/"msg":"worker exited; replacing it"/);
    expect(s.child.exitCode).toBeNull();
  });

  it('on SIGTERM under load finishes every request in flight, resets none, and exits 0', async () => {
    const s = server!;
    const url = `${s.url}/customers?limit=5`;
    const headers = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
    const outcomes = new Map<string, number>();
    const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    // Sixteen clients, each sending its next request as soon as the last is answered. At the
    // SIGTERM each finishes the request it has in flight and sends no more, as a load balancer
    // does once /ready says 503 (SHUTDOWN_DELAY_MS; docs/operations.md "Several processes").
    let draining = false;
    let inFlightAtSigterm = 0;
    const client = async () => {
      while (!draining) {
        const res = await get(url, headers);
        count('error' in res ? res.error : String(res.status));
      }
    };
    const clients = Array.from({ length: 16 }, client);
    await new Promise((r) => setTimeout(r, 1_500));
    const answeredBefore = outcomes.get('200') ?? 0;
    s.child.kill('SIGTERM');
    draining = true;
    inFlightAtSigterm = clients.length;
    await Promise.all(clients);
    // While the delay runs the workers say they are not ready, and still answer. A worker the
    // supervisor has not yet relayed the signal to may still say 200: ask again.
    let ready!: Awaited<ReturnType<typeof get>>;
    await until(
      async () => {
        ready = await get(`${s.url}/ready`);
        return !('status' in ready && ready.status === 200);
      },
      '/ready to stop saying 200',
      s,
      1_000,
    );
    expect('status' in ready && ready.status, JSON.stringify(ready)).toBe(503);
    expect('body' in ready && JSON.parse(ready.body).checks.shutdown).toBe('draining');
    expect(await s.exited).toBe(0);

    const seen = Object.fromEntries(outcomes);
    expect(answeredBefore, JSON.stringify(seen)).toBeGreaterThan(16);
    expect(inFlightAtSigterm).toBe(16);
    expect(Object.keys(seen), JSON.stringify(seen)).toEqual(['200']);
    // Afterwards the port is closed: a new connection is refused, nothing of it sent.
    expect(await get(url, headers)).toEqual({ error: 'ECONNREFUSED' });
  });
});

describe('starting several processes at once on an empty PostgreSQL database', { timeout: 120_000 }, () => {
  let db: { url: string; drop(): Promise<void> };
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    db = await emptyPostgres();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
  });

  it('runs every migration exactly once between four processes, and all four serve', async () => {
    const env = { DATABASE_URL: db.url, DEMO: 'off', MIGRATE: 'auto' };
    servers.push(...(await Promise.all(Array.from({ length: 4 }, () => startServer(env, 90_000)))));
    // Each process logs the migrations it ran: across the four, every one appears once.
    const applied = servers.flatMap((s) =>
      [...s.output().matchAll(/"applied":(\[[^\]]*\]).*"msg":"migrated the database"/g)].flatMap(
        (m) => JSON.parse(m[1]!) as string[],
      ),
    );
    expect(applied.sort()).toEqual(Object.keys(migrations).sort());
    for (const s of servers) expect((await fetch(`${s.url}/ready`)).status).toBe(200);
  });
});

describe('several workers on SQLite', () => {
  it('are refused at start, saying why', async () => {
    const res = await runCliProcess(['serve', '--workers', '2', '--port', '0'], {
      DATABASE_URL: '/tmp/venue-workers-refused.sqlite',
    });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/WORKERS=2 needs PostgreSQL: SQLite has one writer/);
  });
});
