import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate } from '../../src/db/index.ts';
import { openAppStorage } from '../../src/storage.ts';
import { prepareDemo } from '../../src/demo.ts';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { freshStorage } from '../helpers/storage.ts';
import { post } from '../helpers/writes.ts';

/**
 * SQLite's disk full, simulated without a mount: `PRAGMA max_page_count` on the storage's
 * own connection caps the file, and SQLite answers SQLITE_FULL, rolling back the whole
 * group-commit transaction, exactly as on a full disk. Every request is answered, 201 or
 * 503 with Retry-After; what was acknowledged is stored once, what was refused not at all,
 * and writes work again once there is room (DECISIONS "Durability", "HTTP and errors").
 */
const ANSWER_WITHIN_MS = 20_000;
const UNCAPPED = 1_073_741_823;

type Outcome = { kind: 'answer'; status: number; headers: Record<string, unknown>; body: string } | { kind: 'hung' };

function within(p: Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>): Promise<Outcome> {
  return Promise.race([
    p.then((r) => ({ kind: 'answer' as const, status: r.statusCode, headers: r.headers, body: r.body })),
    new Promise<Outcome>((resolve) => setTimeout(() => resolve({ kind: 'hung' }), ANSWER_WITHIN_MS)),
  ]);
}

async function capPages(db: TestApp['storage']['db'], extra: number): Promise<void> {
  const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
  await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + extra}`).execute(db);
}

describe('SQLite disk full under concurrent writes', { timeout: 120_000 }, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp('sqlite');
  });
  afterAll(async () => t?.close());

  it('200 concurrent POST /customers: each answered 201 or 503, stored exactly when acknowledged; then it recovers', async () => {
    const key = await t.makeKey({ name: 'bulk', limits: { writes_per_minute: 1_000, requests_per_minute: 1_000 } });
    // Room for some of the customers, not all: groups commit until one no longer fits.
    await capPages(t.storage.db, 40);
    const requests = Array.from({ length: 200 }, (_, i) => ({ email: `full-${i}-${randomUUID()}@example.com` }));
    const outcomes = await Promise.all(
      requests.map((r) => within(post(t, key, '/customers', { first_name: 'Full', email: r.email }))),
    );

    expect(outcomes.filter((o) => o.kind === 'hung')).toHaveLength(0);
    const answers = outcomes as Extract<Outcome, { kind: 'answer' }>[];
    expect(answers.filter((a) => a.status !== 201 && a.status !== 503)).toEqual([]);
    const refused = answers.filter((a) => a.status === 503);
    console.log(`disk full: 200 concurrent POSTs -> ${200 - refused.length} x 201, ${refused.length} x 503`);
    // The cap is meant to bite: otherwise this test proves nothing.
    expect(refused.length).toBeGreaterThan(0);
    for (const a of refused) {
      expect(a.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(a.body).code).toBe('service_unavailable');
      expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
    }

    const stored = await t.storage.db
      .selectFrom('customers')
      .select(['id', 'email'])
      .where('workspace_id', '=', t.workspaceId)
      .execute();
    const byEmail = new Map<string, string[]>();
    for (const row of stored) byEmail.set(row.email!, [...(byEmail.get(row.email!) ?? []), row.id]);
    answers.forEach((a, i) => {
      const ids = byEmail.get(requests[i]!.email) ?? [];
      if (a.status === 201) expect(ids).toEqual([JSON.parse(a.body).id]);
      else expect(ids).toEqual([]);
    });

    // Room again: the next write succeeds with no restart.
    await sql.raw(`pragma max_page_count = ${UNCAPPED}`).execute(t.storage.db);
    const after = await post(t, key, '/customers', { first_name: 'After' });
    expect(after.statusCode).toBe(201);
    expect(t.storage.writeHealth().failing).toBe(false);
  });
});

describe('starting on a full SQLite database', { timeout: 120_000 }, () => {
  it('migrates, finds the demo and serves reads without writing; a write answers 503', async () => {
    // A database as a first start leaves it: migrated, the demo made, a key of our own.
    const made = await freshStorage('sqlite');
    const demo = await prepareDemo(made, systemClock);
    expect(demo.kind).toBe('created');
    const workspaceId = (demo as { demo: { workspace_id: string } }).demo.workspace_id;
    const { secret } = await createKey(made, systemClock, {
      workspaceId,
      name: 'reader',
      mode: 'test',
      access: 'read_write',
    });
    await made.close();

    // The start of src/server.ts, on a connection that can write nothing at all: no page
    // may be added (a full disk) and, stricter, no statement may write (query_only).
    const storage = await openAppStorage(made.url);
    try {
      await capPages(storage.db, 0);
      await sql`pragma query_only = on`.execute(storage.db);
      await migrate(storage);
      expect((await prepareDemo(storage, systemClock)).kind).toBe('existing');
      const { app } = await buildApp(loadConfig({ BASE_URL: 'http://api.test' }), { storage, logger: false });
      try {
        const headers = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
        const list = await app.inject({ method: 'GET', url: '/customers?limit=5', headers });
        expect(list.statusCode).toBe(200);
        expect(list.json().data.length).toBeGreaterThan(0);

        // Writes may use what free space the pages have left; then each answers 503.
        await sql`pragma query_only = off`.execute(storage.db);
        const statuses: number[] = [];
        while (!statuses.includes(503) && statuses.length < 500) {
          const write = await app.inject({
            method: 'POST',
            url: '/customers',
            headers: { ...headers, 'idempotency-key': randomUUID() },
            payload: { first_name: 'Nowhere', how_heard_about_us: 'x'.repeat(500) },
          });
          statuses.push(write.statusCode);
          if (write.statusCode === 503) expect(write.headers['retry-after']).toBeDefined();
        }
        expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
        expect(statuses.at(-1)).toBe(503);
        expect(storage.writeHealth()).toMatchObject({ failing: true, reason: 'full' });
      } finally {
        await app.close();
      }
    } finally {
      await storage.close();
      await made.drop();
    }
  });
});
