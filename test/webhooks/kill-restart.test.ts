import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createEndpoint } from '../../src/resources/webhooks/webhook.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/**
 * kill -9 of a real server process (`node dist/bundle/server.js`) between the commits and the
 * deliveries: the receiver holds its answers, so some deliveries are in flight (claimed by the
 * process that dies) and the rest wait unclaimed; a burst of POSTs is cut by the kill, so some
 * transactions never commit. After a restart every committed event reaches the receiver,
 * verified with the `standardwebhooks` package, and no event of an uncommitted change does.
 */
const BURST_WORKERS = 4;
/**
 * Answers before the kill: more than the 128 deliveries of one endpoint a process holds at once
 * (eight times its 16 attempts), so some are certainly never claimed before it dies.
 */
const KILL_AFTER = 140;

describe.each(ENGINES)('webhook deliveries after kill -9 of the server on %s', (engine) => {
  let storage: TestStorage;
  let receiver: Receiver;
  let secret: string;
  let workspaceId: string;
  let server: ServerProcess | null = null;
  const env = () => ({
    DATABASE_URL: storage.url,
    WEBHOOK_ALLOW_HTTP: 'on',
    WEBHOOK_ALLOW_PRIVATE: 'on',
    // A held attempt that times out before the kill is retried soon, not in minutes.
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1',
  });

  beforeAll(async () => {
    storage = await freshStorage(engine);
    receiver = await startReceiver();
    // Made before the server starts: a server seeds a demo workspace only into an empty database.
    const ws = await createWorkspace(storage, systemClock, { name: 'Kill', requestsPerMinute: 100_000 });
    workspaceId = ws.id;
    const limits = { requests_per_minute: 100_000, writes_per_minute: 100_000, writes_per_day: 100_000 };
    secret = (
      await createKey(storage, systemClock, {
        workspaceId,
        name: 'kill',
        mode: 'live',
        access: 'read_write',
        limits,
      })
    ).secret;
    const made = await createEndpoint(
      storage,
      systemClock,
      { allowHttp: true, allowPrivate: true },
      { workspaceId, url: receiver.url(), mode: 'live', contactsMasked: false, createdBy: 'test' },
    );
    receiver.secret = made.secret;
  }, 60_000);

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await receiver?.close();
    await storage?.drop();
  });

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server!.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        'service-version': '2026-10-08',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  async function created(name: string, email?: string): Promise<string> {
    const res = await call('POST', '/customers', { first_name: name, ...(email ? { email } : {}) });
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${server?.output() ?? ''}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('every committed event is delivered after a restart, and none of a change that never committed', async () => {
    // The receiver takes every request and answers none until told: the first process's
    // attempts hang in flight (at most 4 to one endpoint), the rest of its queue waits.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    receiver.answer = async () => {
      await held;
      return { status: 204 };
    };
    server = await startServer(env());

    const answered: string[] = [];
    for (let i = 0; i < 6; i++) answered.push(await created(`Before ${i}`, `before-${i}@example.com`));
    const updated = answered[0]!;
    const deleted = answered[1]!;
    expect((await call('PATCH', `/customers/${updated}`, { nickname: 'Changed' }, { 'if-match': '*' })).status).toBe(
      200,
    );
    expect((await call('DELETE', `/customers/${deleted}`)).status).toBe(200);
    // Refused in full: no customer, so no event.
    const refused = await call('POST', '/customers', { first_name: 'Refused', email: 'before-2@example.com' });
    expect(refused.status).toBe(409);
    await until('four attempts in flight at the receiver', () => receiver.received.length >= 4, 15_000);

    // A burst of concurrent POSTs, cut by SIGKILL: those unanswered may or may not have committed.
    const live = server;
    let burstAnswers = 0;
    const burst = async (w: number) => {
      for (let i = 0; i < 200 && live.child.exitCode === null && live.child.signalCode === null; i++) {
        try {
          const res = await call('POST', '/customers', { first_name: `Burst ${w}-${i}` });
          if (res.status !== 201) throw new Error(`unexpected ${res.status}: ${await res.text()}`);
          answered.push(((await res.json()) as { id: string }).id);
          if (++burstAnswers === KILL_AFTER) live.child.kill('SIGKILL');
        } catch (err) {
          if ((err as Error).message.startsWith('unexpected')) throw err;
          return; // the connection died with the process
        }
      }
    };
    await Promise.all(Array.from({ length: BURST_WORKERS }, (_, w) => burst(w)));
    await live.exited;
    expect(live.child.signalCode).toBe('SIGKILL');
    const heldIds = new Set(receiver.received.map((r) => r.id));
    const beforeRestart = receiver.received.length;

    // Committed but undelivered: every event of this workspace is in the outbox with a delivery
    // not yet delivered (or one whose answer the dead process never read).
    const outbox = await storage.db
      .selectFrom('webhook_events')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .execute();
    const events = outbox.map((e) => e.id);
    const pendingBefore = await storage.db
      .selectFrom('webhook_deliveries')
      .select(['event_id', 'claimed_until'])
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'pending')
      .execute();
    expect(pendingBefore).toHaveLength(outbox.length);
    // Some were claimed by the process that died.
    expect(pendingBefore.some((d) => d.claimed_until !== null)).toBe(true);

    receiver.answer = () => ({ status: 204 });
    release();
    server = await startServer(env());
    // The dead process's claims are taken again once their lease (30 s) runs out.
    await until(
      'every delivery delivered',
      async () => {
        const left = await storage.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('workspace_id', '=', workspaceId)
          .where('status', '!=', 'delivered')
          .execute();
        return left.length === 0;
      },
      60_000,
    );

    const got = receiver.received;
    expect(got.every((r) => r.verified)).toBe(true);
    const eventIds = new Set(events);
    const seen = new Set(got.map((r) => r.id));
    // Each committed event at least once, and nothing that is not a committed event.
    for (const id of eventIds) expect(seen.has(id), `event ${id} delivered`).toBe(true);
    for (const id of seen) expect(eventIds.has(id), `delivered ${id} is a committed event`).toBe(true);
    // The attempts the dead process never heard the end of came again, with the same webhook-id.
    const after = got.slice(beforeRestart);
    for (const id of heldIds) expect(after.some((r) => r.id === id)).toBe(true);

    // Every customer that exists (committed) has its customer.created, every answered POST's
    // among them; no event names a customer that does not (a rolled-back create).
    const customers = await storage.db
      .selectFrom('customers')
      .select(['id', 'first_name'])
      .where('workspace_id', '=', workspaceId)
      .execute();
    const customerIds = new Set(customers.map((c) => c.id));
    for (const id of answered) expect(customerIds.has(id), `answered ${id} committed`).toBe(true);
    const createdFor = new Set(got.filter((r) => r.body.type === 'customer.created').map((r) => r.body.data.object.id));
    for (const id of customerIds) expect(createdFor.has(id), `customer.created of ${id}`).toBe(true);
    for (const r of got)
      expect(customerIds.has(r.body.data.object.id), `${r.body.type} of a committed customer`).toBe(true);
    expect(got.some((r) => r.body.type === 'customer.updated' && r.body.data.object.id === updated)).toBe(true);
    expect(got.some((r) => r.body.type === 'customer.deleted' && r.body.data.object.id === deleted)).toBe(true);
    expect(got.some((r) => r.body.data.object.first_name === 'Refused')).toBe(false);
    console.info(
      `kill -9 on ${engine}: ${events.length} committed events (${answered.length} answered writes, ` +
        `${customers.length - 6} burst customers committed), ${heldIds.size} in flight at the kill, ` +
        `${got.length} requests received in all`,
    );
  }, 120_000);
});
