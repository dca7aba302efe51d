import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * DECISIONS "Idempotency" across processes: two server processes on one PostgreSQL; 50 concurrent identical
 * POSTs with one key and one Idempotency-Key, split across both. Exactly one customer and
 * one change-log row; every answer is the same 201 or a 409.
 */
const REQUESTS = 50;

describe('one Idempotency-Key raced across two server processes on postgres', () => {
  let storage: TestStorage;
  let servers: ServerProcess[] = [];
  let secret: string;

  beforeAll(async () => {
    storage = await freshStorage('postgres');
    // Made before the servers start: serve() seeds a demo workspace into an empty database.
    const ws = await createWorkspace(storage, systemClock, { name: 'Race', requestsPerMinute: 100_000 });
    const limits = { requests_per_minute: 100_000, writes_per_minute: 100_000 };
    secret = (
      await createKey(storage, systemClock, {
        workspaceId: ws.id,
        name: 'racer',
        mode: 'test',
        access: 'read_write',
        limits,
      })
    ).secret;
    // BASE_URL: vitest puts Vite's '/' in process.env, which the children would inherit.
    const env = { DATABASE_URL: storage.url, BASE_URL: '' };
    servers = await Promise.all([startServer(env), startServer(env)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await storage?.drop();
  });

  it('makes exactly one customer; every answer is that same 201 or a 409', async () => {
    const body = JSON.stringify({ first_name: 'Racer', email: 'racer@example.com' });
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        const res = await fetch(`${servers[i % 2]!.url}/customers`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${secret}`,
            'service-version': '2026-10-08',
            'content-type': 'application/json',
            'idempotency-key': 'one-key-for-all',
          },
          body,
        });
        return {
          status: res.status,
          body: await res.text(),
          replayed: res.headers.get('idempotent-replayed') === 'true',
        };
      }),
    );
    const created = answers.filter((a) => a.status === 201);
    const conflicts = answers.filter((a) => a.status === 409);
    console.info(
      `race: ${REQUESTS} POSTs over 2 processes -> ${created.length} x 201 (${created.filter((a) => a.replayed).length} replayed), ${conflicts.length} x 409, others ${answers.length - created.length - conflicts.length}`,
    );
    expect(created.length + conflicts.length).toBe(REQUESTS);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body)).size).toBe(1);
    expect(created.filter((a) => !a.replayed)).toHaveLength(1);
    for (const c of conflicts) expect(JSON.parse(c.body).code).toBe('conflict');

    const customers = await storage.db.selectFrom('customers').select('id').where('first_name', '=', 'Racer').execute();
    expect(customers).toHaveLength(1);
    expect(JSON.parse(created[0]!.body).id).toBe(customers[0]!.id);
    const log = await storage.db
      .selectFrom('change_log')
      .select('id')
      .where('object_id', '=', customers[0]!.id)
      .execute();
    expect(log).toHaveLength(1);
  }, 60_000);
});
