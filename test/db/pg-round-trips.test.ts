import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/db/index.ts';
import { fanOutEvents } from '../../src/resources/webhooks/webhook-fan-out.repo.ts';
import { createEndpoint, deleteEndpoint } from '../../src/resources/webhooks/webhook.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * dialects/postgres.ts and pg-begin.ts: a transaction's BEGIN goes with its first statement;
 * and an idempotent write's change-log row goes with its stored answer, one INSERT inside
 * the other's WITH (idempotency.repo.ts). pg sends one request and waits for its answer
 * before the next, so each call of pg.Client's query is one round trip.
 */
function countingRoundTrips() {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text: string };
    sent.push(typeof q === 'string' ? q : q.text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return { sent, restore: () => (pg.Client.prototype.query = query) };
}

/** A create by the live key under its own Idempotency-Key. */
const createAda = (t: TestApp, idempotencyKey: string, email: string) =>
  t.call(t.keys.live, {
    method: 'POST',
    url: '/customers',
    headers: { 'idempotency-key': idempotencyKey },
    payload: { first_name: 'Ada', email },
  });

/** An update of one field by the live key. */
const nameCountess = (t: TestApp, id: string) =>
  t.call(t.keys.live, { method: 'PATCH', url: `/customers/${id}`, payload: { nickname: 'Countess' } });

describe.runIf(ENGINES.includes('postgres'))('round trips of a transaction (postgres)', () => {
  let fresh: TestStorage;
  beforeAll(async () => {
    fresh = await freshStorage('postgres');
  });
  afterAll(() => fresh.drop());

  it('a create sends BEGIN with its first statement and its last rows in one statement: five round trips', async () => {
    const t = await makeTestApp('postgres');
    // The key's first request reads it into the process's cache; later ones do not.
    await t.call(t.keys.live, { method: 'GET', url: '/customers?limit=1' });
    const trips = countingRoundTrips();
    try {
      const created = await createAda(t, 'trips-1', 'ada@example.com');
      expect(created.statusCode).toBe(201);
      expect(trips.sent).not.toContain('begin');
      expect(trips.sent.at(-1)).toBe('commit');
      // The key's lock with its stored answer; the INSERT, whose email index is the email
      // check; the answer read back by the GET's statement; the change log and the stored
      // answer in the WITH of the look-up of the webhook endpoints that would take the event
      // (none here); COMMIT.
      expect(trips.sent).toHaveLength(5);
      expect(trips.sent[0]).toMatch(/pg_try_advisory_xact_lock.*left join "idempotency_keys"/s);
      expect(trips.sent[1]).toMatch(/^insert into "customers".*on conflict do nothing$/s);
      expect(trips.sent[2]).toMatch(/^select "customers"\."id"/s);
      expect(trips.sent[3]).toMatch(
        /^with "change" as \(insert into "change_log".*"answer" as \(insert into "idempotency_keys".*from "webhook_endpoints"/s,
      );

      // The replay is a transaction that wrote nothing, and its answer is the first one.
      trips.sent.length = 0;
      const again = await createAda(t, 'trips-1', 'ada@example.com');
      expect(again.json().id).toBe(created.json().id);
      expect(trips.sent).toHaveLength(2);

      // An update: the row's lock, the customer read before (its event's previous_attributes),
      // the new version, the answer read back, the change log in the WITH of the endpoints'
      // look-up, COMMIT.
      trips.sent.length = 0;
      const updated = await nameCountess(t, created.json().id);
      expect(updated.statusCode).toBe(200);
      expect(trips.sent).toHaveLength(6);
      expect(trips.sent[4]).toMatch(/^with "change" as \(insert into "change_log".*from "webhook_endpoints"/s);
    } finally {
      trips.restore();
      await t.close();
    }
  });

  it("with webhook endpoints, a write's event rides in its change-log row: still five round trips", async () => {
    const t = await makeTestApp('postgres');
    const open = { allowHttp: true, allowPrivate: true };
    // Six live endpoints, and one of the other mode, which takes nothing here.
    const endpoints: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { endpoint } = await createEndpoint(t.storage, t.clock.fn, open, {
        workspaceId: t.workspaceId,
        url: `http://127.0.0.1:9/hook-${i}`,
        mode: 'live',
        contactsMasked: false,
        createdBy: 'test',
      });
      endpoints.push(endpoint.id);
    }
    await createEndpoint(t.storage, t.clock.fn, open, {
      workspaceId: t.workspaceId,
      url: 'http://127.0.0.1:9/test-mode',
      mode: 'test',
      contactsMasked: false,
      createdBy: 'test',
    });
    // What the delivery worker makes of the events waiting in change-log rows.
    const deliveriesOf = async (type: string) => {
      await t.storage.write((tx) => fanOutEvents(tx, t.storage.engine, 100));
      return t.storage.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
        .select(['d.endpoint_id', 'e.payload'])
        .where('e.type', '=', type)
        .execute();
    };
    const create = (n: number) => createAda(t, `hooks-${n}`, `ada-${n}@example.com`);
    // The key's first request reads it into the process's cache; later ones do not.
    await t.call(t.keys.live, { method: 'GET', url: '/customers?limit=1' });
    const trips = countingRoundTrips();
    try {
      // The scope's first write in this process learns of its endpoints from its last
      // statement: its event goes into its row after it.
      expect((await create(1)).statusCode).toBe(201);
      expect(trips.sent).toHaveLength(6);
      expect(trips.sent[4]).toMatch(/^update "change_log" set "event"/);
      trips.sent.length = 0;
      const created = await create(2);
      expect(created.statusCode).toBe(201);
      expect(trips.sent).toHaveLength(5);
      expect(trips.sent[3]).toMatch(
        /^with "change" as \(insert into "change_log" \(.*"event"\).*from "webhook_endpoints"/s,
      );

      // Each create's event once, to each live endpoint once, its record what GET shows.
      const rows = await deliveriesOf('customer.created');
      expect(rows).toHaveLength(12);
      for (const id of endpoints) expect(rows.filter((r) => r.endpoint_id === id)).toHaveLength(2);
      const shown = await t.call(t.keys.live, { method: 'GET', url: `/customers/${created.json().id}` });
      const payloads = rows.map((r) => JSON.parse(r.payload) as { data: { object: { id: string } } });
      expect(payloads.find((p) => p.data.object.id === created.json().id)?.data.object).toEqual(shown.json());

      // Down to one endpoint: five round trips for the create, six for an update.
      for (const id of endpoints.slice(1)) await deleteEndpoint(t.storage, t.workspaceId, id);
      await create(3);
      trips.sent.length = 0;
      expect((await create(4)).statusCode).toBe(201);
      expect(trips.sent).toHaveLength(5);
      trips.sent.length = 0;
      const updated = await nameCountess(t, created.json().id);
      expect(updated.statusCode).toBe(200);
      expect(trips.sent).toHaveLength(6);
      const [update] = await deliveriesOf('customer.updated');
      const event = JSON.parse(update!.payload) as { data: { object: unknown; previous_attributes: unknown } };
      expect(event.data.object).toEqual(updated.json());
      expect(event.data.previous_attributes).toEqual({ nickname: null });
    } finally {
      trips.restore();
      await t.close();
    }
  });

  it('a failed first statement rolls its transaction back and leaves the connection serving', async () => {
    const storage = await openStorage(fresh.url, { postgres: { poolSize: 1 } });
    try {
      await sql`create table trips (id int primary key)`.execute(storage.db);
      await sql`insert into trips values (${1})`.execute(storage.db);
      await expect(
        storage.db.transaction().execute(async (tx) => {
          await sql`insert into trips values (${1})`.execute(tx);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      await expect(
        storage.db.transaction().execute(async (tx) => {
          await sql`insert into trips values (${2})`.execute(tx);
          await sql`insert into trips values (${1})`.execute(tx);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      const rows = await sql<{ id: number }>`select id from trips order by id`.execute(storage.db);
      expect(rows.rows).toEqual([{ id: 1 }]);
      // A transaction whose first statement has no parameters sends BEGIN on its own first.
      await storage.db.transaction().execute(async (tx) => {
        await sql`insert into trips values (3)`.execute(tx);
        const inside = await sql<{ n: string }>`select count(*)::int as n from trips where id > ${0}`.execute(tx);
        expect(inside.rows).toEqual([{ n: 2 }]);
      });
      // A transaction that ran nothing sends nothing.
      const trips = countingRoundTrips();
      try {
        await storage.db.transaction().execute(async () => undefined);
        expect(trips.sent).toEqual([]);
      } finally {
        trips.restore();
      }
      const status = await sql<{ s: string }>`select pg_current_xact_id_if_assigned()::text as s`.execute(storage.db);
      expect(status.rows).toEqual([{ s: null }]);
    } finally {
      await storage.close();
    }
  });
});
