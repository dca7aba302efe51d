import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { addCustomers } from '../jobs/activity-fixtures.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/** Polls (bounded: 10 s) until `condition` holds; fails with the server's output. */
async function until(condition: () => boolean | Promise<boolean>, what: string, server: ServerProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Graceful shutdown (docs/operations.md "Shutdown"): on SIGTERM a server stops taking requests,
 * finishes the ones in flight, then exits 0. A request is held in flight for real by a
 * table lock the test owns, so the SIGTERM certainly lands while it runs.
 */
describe('graceful shutdown of a server process', () => {
  let storage: TestStorage;
  let server: ServerProcess | null = null;
  let admin: pg.Client | null = null;
  let secret: string;

  beforeAll(async () => {
    storage = await freshStorage('postgres');
    const ws = await createWorkspace(storage, systemClock, { name: 'Shutdown' });
    secret = (await createKey(storage, systemClock, { workspaceId: ws.id, name: 'k', mode: 'live', access: 'read' }))
      .secret;
    await addCustomers(storage.db, ws.id, 3, Date.now());
    server = await startServer({ DATABASE_URL: storage.url });
    admin = new pg.Client({ connectionString: storage.url });
    await admin.connect();
  }, 60_000);

  afterAll(async () => {
    await admin?.query('ROLLBACK').catch(() => undefined);
    await admin?.end();
    await server?.stop();
    await storage?.drop();
  });

  const headers = () => ({ authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' });

  it('finishes a request in flight when SIGTERM arrives, refuses new ones, and exits 0', async () => {
    const s = server!;
    expect((await fetch(`${s.url}/key`, { headers: headers() })).status).toBe(200);

    await admin!.query('BEGIN');
    await admin!.query('LOCK TABLE customers IN ACCESS EXCLUSIVE MODE');
    const inFlight = fetch(`${s.url}/customers`, { headers: { ...headers(), connection: 'close' } });

    // Wait (bounded) until the server's query is blocked on our lock: the request is in flight.
    let waiting = 0;
    for (let i = 0; i < 100 && waiting === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const { rows } = await admin!.query(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      waiting = rows[0].n;
    }
    expect(waiting).toBeGreaterThan(0);

    s.child.kill('SIGTERM');
    // The server says it began closing; then (bounded) a new request is refused, not served.
    await until(() => s.output().includes('closing: finishing in-flight requests'), 'the closing log line', s);
    let late: number | string = 0;
    await until(
      async () => {
        late = await fetch(`${s.url}/health`, { headers: { connection: 'close' } }).then(
          (res) => res.status,
          () => 'refused',
        );
        return late !== 200;
      },
      'new requests to be refused',
      s,
    );
    expect([503, 'refused']).toContain(late);
    // Our lock still holds the request in flight: a server that waits for it is still up.
    expect(s.child.exitCode).toBeNull();

    await admin!.query('COMMIT');
    // Answered in full, so the process lived until the request was done.
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(3);
    expect(await s.exited).toBe(0);
  });
});
