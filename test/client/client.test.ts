import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { type Customer, VenueApiError, VenueClient, VenueConnectionError } from 'venue-api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { changeKeyStatus, createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * venue-api-client (clients/typescript) against `node dist/bundle/server.js`, as an
 * integrator runs it: paging, a create retried after its answer was lost, the error codes a
 * client can meet, and the retry of a 409 whose first request is still running.
 */
const HIGH = { requests_per_minute: 100_000, writes_per_minute: 100_000, writes_per_day: 100_000 };

/**
 * A TCP proxy in front of the server that, when armed, forwards one request and then cuts
 * the connection as the answer starts to come back: the write happened, its answer is lost.
 */
async function droppingProxy(target: URL): Promise<{ url: string; armDrop(): void; close(): Promise<void> }> {
  let drop = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (drop) {
        drop = false;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    armDrop: () => {
      drop = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function caught(promise: Promise<unknown>): Promise<VenueApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof VenueApiError) return err;
    throw err;
  }
  throw new Error('expected a VenueApiError');
}

describe.each(ENGINES)('venue-api-client against the server process on %s', { timeout: 60_000 }, (engine) => {
  let storage: TestStorage;
  let server: ServerProcess;
  const secrets = { test: '', live: '', liveRead: '', paused: '' };
  let venue: VenueClient;

  beforeAll(async () => {
    storage = await freshStorage(engine);
    // Made before the server starts: serve() seeds a demo workspace into an empty database.
    const ws = await createWorkspace(storage, systemClock, { name: 'Client', requestsPerMinute: 100_000 });
    const key = async (name: string, mode: 'test' | 'live', access: 'read' | 'read_write') =>
      (await createKey(storage, systemClock, { workspaceId: ws.id, name, mode, access, limits: HIGH })).secret;
    secrets.test = await key('client test', 'test', 'read_write');
    secrets.live = await key('client live', 'live', 'read_write');
    secrets.liveRead = await key('client read', 'live', 'read');
    const paused = await createKey(storage, systemClock, {
      workspaceId: ws.id,
      name: 'paused',
      mode: 'live',
      access: 'read',
    });
    await changeKeyStatus(storage, systemClock, paused.key.id, 'pause', 'test');
    secrets.paused = paused.secret;
    server = await startServer({ DATABASE_URL: storage.url });
    venue = new VenueClient({ apiKey: secrets.test, baseUrl: server.url });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await storage?.drop();
  });

  it('lists the customers deleted since with include_deleted: true, typed apart from customers', async () => {
    const since = new Date(Date.now() - 1).toISOString();
    const kept = await venue.customers.create({ first_name: 'Kept' });
    const gone = await venue.customers.create({ first_name: 'Gone' });
    await venue.customers.delete(gone.id);
    const seen: string[] = [];
    for await (const c of venue.customers.list({ updated_since: since, include_deleted: true, limit: 1 })) {
      // The union narrows on `deleted`: a deletion has no name to read.
      seen.push('deleted' in c ? `deleted ${c.id} at ${c.deleted_at}` : `${c.id} ${c.first_name}`);
    }
    expect(seen).toEqual([expect.stringMatching(new RegExp(`^deleted ${gone.id} at 20`)), `${kept.id} Kept`]);
  });

  it('lists one page when awaited and walks every record exactly once when iterated', async () => {
    const made = new Set<string>();
    for (let i = 0; i < 23; i++) {
      const c = await venue.customers.create({ first_name: `Pager ${i}`, email: `pager${i}@example.com` });
      made.add(c.id);
    }
    const page = await venue.customers.list({ limit: 5 });
    expect(page.object).toBe('list');
    expect(page.data).toHaveLength(5);
    expect(page.has_more).toBe(true);
    expect(typeof page.next_cursor).toBe('string');

    const seen: string[] = [];
    for await (const c of venue.customers.list({ limit: 5 })) {
      if (c.first_name.startsWith('Pager')) seen.push(c.id);
    }
    expect(seen).toHaveLength(made.size);
    expect(new Set(seen)).toEqual(made);

    // Filters are sent: an exact email finds its one customer.
    const one = await venue.customers.list({ email: 'PAGER7@example.com' });
    expect(one.data.map((c) => c.email)).toEqual(['pager7@example.com']);
  });

  it('retries a create whose answer was lost with the same Idempotency-Key, and writes it once', async () => {
    const proxy = await droppingProxy(new URL(server.url));
    const keys: string[] = [];
    const client = new VenueClient({
      apiKey: secrets.test,
      baseUrl: proxy.url,
      maxRetries: 2,
      sleep: async () => {},
      fetch: (input, init) => {
        const key = new Headers(init?.headers).get('idempotency-key');
        if (key) keys.push(key);
        return fetch(input, init);
      },
    });
    try {
      proxy.armDrop();
      const created = await client.customers.create({ first_name: 'Once', email: 'once@example.com' });
      expect(created.email).toBe('once@example.com');
      expect(keys).toHaveLength(2);
      expect(keys[1]).toBe(keys[0]);
      const found = await venue.customers.list({ email: 'once@example.com' });
      expect(found.data.map((c) => c.id)).toEqual([created.id]);
    } finally {
      await proxy.close();
    }
  });

  it('gives up on a lost answer with VenueConnectionError when retries are off', async () => {
    const proxy = await droppingProxy(new URL(server.url));
    const client = new VenueClient({ apiKey: secrets.test, baseUrl: proxy.url, maxRetries: 0 });
    try {
      proxy.armDrop();
      await expect(client.key.retrieve()).rejects.toBeInstanceOf(VenueConnectionError);
    } finally {
      await proxy.close();
    }
  });

  it('updates with a bare version as If-Match, and a stale one is precondition_failed', async () => {
    const c = await venue.customers.create({ first_name: 'Versioned' });
    const updated = await venue.customers.update(c.id, { nickname: 'V' }, { ifMatch: c.version });
    expect(updated.nickname).toBe('V');
    const stale = await caught(venue.customers.update(c.id, { nickname: 'W' }, { ifMatch: c.version }));
    expect(stale).toMatchObject({ status: 412, code: 'precondition_failed' });
    // An ETag as the server sends it is passed through as it is.
    const again = await venue.customers.update(c.id, { nickname: 'W' }, { ifMatch: `"${updated.version}"` });
    expect(again.nickname).toBe('W');
  });

  it('tags, lists, deletes and removes test data through the resource methods', async () => {
    const tag = (await venue.tags.list({ limit: 1 })).data[0];
    const list = (await venue.lists.list({ limit: 1 })).data[0];
    let c: Customer = await venue.customers.create({ first_name: 'Member' });
    if (tag) {
      c = await venue.customers.addTag(c.id, tag.id);
      expect(c.tags.map((t) => t.id)).toEqual([tag.id]);
      c = await venue.customers.removeTag(c.id, tag.id);
      expect(c.tags).toEqual([]);
    }
    if (list) {
      c = await venue.customers.addToList(c.id, list.id);
      expect(c.lists.map((l) => l.id)).toEqual([list.id]);
      c = await venue.customers.removeFromList(c.id, list.id);
      expect(c.lists).toEqual([]);
    }
    expect(await venue.customers.retrieve(c.id)).toMatchObject({ id: c.id, object: 'customer' });
    expect(await venue.customers.delete(c.id)).toEqual({ id: c.id, object: 'customer', deleted: true });
    expect((await venue.key.retrieve()).mode).toBe('test');
    const removal = await venue.testData.delete();
    expect(removal.object).toBe('test_data_removal');
    expect(removal.customers).toBeGreaterThan(0);
  });

  it('answers each error code a client can meet as a VenueApiError with its fields', async () => {
    const live = new VenueClient({ apiKey: secrets.live, baseUrl: server.url });
    const read = new VenueClient({ apiKey: secrets.liveRead, baseUrl: server.url });
    const paused = new VenueClient({ apiKey: secrets.paused, baseUrl: server.url });
    const wrong = new VenueClient({ apiKey: `vw_test_${'x'.repeat(38)}`, baseUrl: server.url, maxRetries: 0 });

    const invalid = await caught(venue.customers.list({ limit: 500 }));
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', title: 'The request is not valid' });
    expect(invalid.errors.map((e) => e.field)).toEqual(['querystring.limit']);
    expect(invalid.requestId).toMatch(/^req_/);
    expect(invalid.type).toMatch(/#invalid_request$/);
    expect(invalid.detail).not.toBe('');
    expect(invalid).toBeInstanceOf(Error);

    expect(await caught(wrong.key.retrieve())).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(await caught(read.customers.create({ first_name: 'No' }))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    expect(await caught(live.testData.delete())).toMatchObject({ status: 403, code: 'forbidden' });
    expect(await caught(paused.key.retrieve())).toMatchObject({ status: 403, code: 'key_paused' });
    expect(await caught(venue.customers.retrieve('cus_doesnotexist'))).toMatchObject({
      status: 404,
      code: 'not_found',
    });

    await venue.customers.create({ first_name: 'Taken', email: 'taken@example.com' });
    const taken = await caught(venue.customers.create({ first_name: 'Again', email: 'taken@example.com' }));
    expect(taken).toMatchObject({ status: 409, code: 'conflict', retryAfter: null });

    const big = await caught(venue.customers.create({ first_name: 'Big', how_heard_about_us: 'x'.repeat(70_000) }));
    expect(big).toMatchObject({ status: 413, code: 'payload_too_large' });

    await venue.customers.create({ first_name: 'Keyed' }, { idempotencyKey: 'client-test-key' });
    const mismatch = await caught(
      venue.customers.create({ first_name: 'Other' }, { idempotencyKey: 'client-test-key' }),
    );
    expect(mismatch).toMatchObject({ status: 422, code: 'idempotency_mismatch' });
  });

  it('retries a 409 whose first request is still running until its answer is there', async () => {
    // Every 409 the server sends for a key still running says when to retry (the client relies on it).
    const conflicts: (string | null)[] = [];
    const observed: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (res.status === 409) conflicts.push(res.headers.get('retry-after'));
      return res;
    };
    // Enough retries (a second apart) to outlast the first create on a machine busy with the
    // whole suite: the point is that they end in its answer, not how soon.
    const racers = Array.from({ length: 8 }, () =>
      new VenueClient({ apiKey: secrets.test, baseUrl: server.url, maxRetries: 30, fetch: observed }).customers.create(
        { first_name: 'Racer', email: 'racer@example.com' },
        { idempotencyKey: 'one-key-for-all-racers' },
      ),
    );
    const answers = await Promise.all(racers);
    expect(conflicts.every((retryAfter) => retryAfter === '1')).toBe(true);
    expect(new Set(answers.map((c) => c.id)).size).toBe(1);
    const found = await venue.customers.list({ email: 'racer@example.com' });
    expect(found.data).toHaveLength(1);
  });
});
