import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * Crash test, on SQLite: kill -9 the server process while it takes concurrent POSTs,
 * restart it, and check that every POST answered 201 has its customer, and that retrying
 * each unanswered POST with its Idempotency-Key leaves exactly one customer per key. Five
 * rounds, each killed after a different number of answers.
 */
const ROUNDS = 5;
const WORKERS = 8;

interface Attempt {
  key: string;
  name: string;
  /** The customer id of a 201, null when the process died before answering. */
  answered: string | null;
}

function postCustomer(server: ServerProcess, secret: string, key: string, name: string) {
  return fetch(`${server.url}/customers`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${secret}`,
      'service-version': '2026-10-08',
      'content-type': 'application/json',
      'idempotency-key': key,
    },
    body: JSON.stringify({ first_name: name, email: `${name}@example.com` }),
  });
}

describe('kill -9 during concurrent POSTs on sqlite', () => {
  let storage: TestStorage;
  let secret: string;
  let server: ServerProcess | null = null;
  // BASE_URL: vitest puts Vite's '/' in process.env, which the child would inherit.
  const env = () => ({ DATABASE_URL: storage.url, BASE_URL: '' });

  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    // Made before the server starts: serve() seeds a demo workspace into an empty database.
    const ws = await createWorkspace(storage, systemClock, { name: 'Crash', requestsPerMinute: 100_000 });
    const limits = { requests_per_minute: 100_000, writes_per_minute: 100_000, writes_per_day: 100_000 };
    secret = (
      await createKey(storage, systemClock, {
        workspaceId: ws.id,
        name: 'crash',
        mode: 'test',
        access: 'read_write',
        limits,
      })
    ).secret;
  }, 60_000);

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await storage?.drop();
  });

  /** POSTs from WORKERS concurrent clients until `killAfter` have been answered, then SIGKILL. */
  async function loadThenKill(round: number, killAfter: number): Promise<Attempt[]> {
    const live = server!;
    const attempts: Attempt[] = [];
    let answered = 0;
    const worker = async (w: number) => {
      for (let i = 0; i < 200 && live.child.exitCode === null && live.child.signalCode === null; i++) {
        const attempt: Attempt = { key: `r${round}-w${w}-${i}`, name: `crash-r${round}-w${w}-${i}`, answered: null };
        attempts.push(attempt);
        try {
          const res = await postCustomer(live, secret, attempt.key, attempt.name);
          if (res.status !== 201) throw new Error(`unexpected ${res.status}: ${await res.text()}`);
          attempt.answered = ((await res.json()) as { id: string }).id;
          if (++answered === killAfter) live.child.kill('SIGKILL');
        } catch (err) {
          if ((err as Error).message.startsWith('unexpected')) throw err;
          return; // the connection died with the process: this POST is unanswered
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    await live.exited;
    return attempts;
  }

  it(`every answered POST survives and every retried one makes exactly one customer (${ROUNDS} kills)`, async () => {
    server = await startServer(env());
    const totals = { answered: 0, unanswered: 0, committedUnanswered: 0 };
    for (let round = 1; round <= ROUNDS; round++) {
      const attempts = await loadThenKill(round, 10 + round * 7);
      expect(server.child.signalCode).toBe('SIGKILL');
      server = await startServer(env());

      const answered = attempts.filter((a) => a.answered);
      const unanswered = attempts.filter((a) => !a.answered);
      for (const a of answered) {
        const row = await storage.db
          .selectFrom('customers')
          .select('id')
          .where('id', '=', a.answered!)
          .executeTakeFirst();
        expect(row, `customer of answered ${a.key}`).toBeDefined();
      }
      for (const a of unanswered) {
        const res = await postCustomer(server, secret, a.key, a.name);
        expect(res.status, `retry of ${a.key}`).toBe(201);
        if (res.headers.get('idempotent-replayed') === 'true') totals.committedUnanswered++;
      }
      for (const a of attempts) {
        const rows = await storage.db.selectFrom('customers').select('id').where('first_name', '=', a.name).execute();
        expect(rows, `customers for ${a.key}`).toHaveLength(1);
      }
      totals.answered += answered.length;
      totals.unanswered += unanswered.length;
      console.info(
        `crash round ${round}: ${attempts.length} POSTs, ${answered.length} answered 201, ${unanswered.length} unanswered at the kill`,
      );
    }
    console.info(
      `crash totals over ${ROUNDS} kills: ${totals.answered} answered (all present), ${totals.unanswered} unanswered retried -> ` +
        `${totals.committedUnanswered} had committed (replayed), ${totals.unanswered - totals.committedUnanswered} written by the retry; one customer per key`,
    );
    expect(totals.unanswered).toBeGreaterThan(0);
  }, 120_000);
});
