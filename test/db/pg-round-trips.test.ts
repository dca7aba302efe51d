import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/db/index.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * dialects/postgres.ts: a transaction's BEGIN and COMMIT are round trips of their own, as
 * Kysely sends them, so a customer's create, and its update after the read it is planned
 * from, are one statement each with no transaction around it (write-at-once.repo.ts). pg sends one request and waits for its answer before the next,
 * so each call of pg.Client's query is one round trip.
 */
function countingRoundTrips(options: { ignore?: pg.Client; after?: (text: string) => Promise<void> } = {}) {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const result = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    if (this === options.ignore) return result;
    const q = args[0] as string | { text: string };
    const text = typeof q === 'string' ? q : q.text;
    sent.push(text);
    // `after` runs once the statement has answered, before its caller hears the answer.
    const { after } = options;
    if (!after) return result;
    return result.then(async (rows) => {
      await after(text);
      return rows;
    });
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

  it('a create is one statement, and an update one after its read, without BEGIN and COMMIT', async () => {
    const t = await makeTestApp('postgres');
    // The request log writes its batch on a timer of its own: stopped, so only the requests' trips are counted.
    await t.app.requestLog.stop();
    // The key's first request reads it into the process's cache; later ones do not.
    await t.call(t.keys.live, { method: 'GET', url: '/customers?limit=1' });
    const trips = countingRoundTrips();
    try {
      // One statement, run without BEGIN and COMMIT (write-at-once.repo.ts): the key's lock
      // with its stored answer; the INSERT, whose email index is the email check, returning the
      // record as the GET's statement writes it; its change-log row, the stored answer, its
      // event and the event's deliveries to the endpoints that take it (none here).
      const created = await createAda(t, 'trips-1', 'ada@example.com');
      expect(created.statusCode).toBe(201);
      expect(trips.sent).toHaveLength(1);
      expect(trips.sent[0]).toMatch(
        /^with claim as \(select "lock"\."held", "idempotency_keys"\.\* from \(select pg_try_advisory_xact_lock.*left join "idempotency_keys".*written as \(insert into "customers".*on conflict do nothing returning .*"record"\).*shown as .*answer as \(insert into "idempotency_keys".*changes as \(insert into "change_log".*new_events as \(insert into "webhook_events".*made as \(insert into webhook_deliveries/s,
      );

      // The replay is the same statement, which finds the stored answer and writes nothing.
      trips.sent.length = 0;
      const again = await createAda(t, 'trips-1', 'ada@example.com');
      expect(again.json().id).toBe(created.json().id);
      expect(again.body).toBe(created.body);
      expect(trips.sent).toHaveLength(1);

      // A taken email: the statement writes nothing, and the transaction's way tells why and
      // stores the refusal (BEGIN; the claim; the INSERT, refused; ROLLBACK; then BEGIN; the
      // claim; the refusal stored; COMMIT).
      trips.sent.length = 0;
      const taken = await createAda(t, 'trips-2', 'ada@example.com');
      expect(taken.statusCode).toBe(409);
      expect(trips.sent[0]).toMatch(/^with claim as/);
      expect(trips.sent.slice(1, 3)).toEqual(['begin', expect.stringMatching(/pg_try_advisory_xact_lock/)]);

      // An update: the customer read as GET shows it, without a lock; then one statement: the
      // new version, guarded by the version read, returning the record; the changed fields
      // (its event's previous_attributes); its change-log row and event; no answer to store.
      trips.sent.length = 0;
      const updated = await nameCountess(t, created.json().id);
      expect(updated.statusCode).toBe(200);
      expect(trips.sent).toHaveLength(2);
      expect(trips.sent[0]).toMatch(/^select .*from "customers" where/s);
      expect(trips.sent[0]).not.toMatch(/for update/);
      expect(trips.sent[1]).toMatch(
        /^with written as \(update "customers" set .*"version" = \$\d+ returning .*"record"\), shown as .*json_each.*changes as \(insert into "change_log".*new_events as/s,
      );
      expect(trips.sent[1]).not.toMatch(/idempotency_keys/);
    } finally {
      trips.restore();
      await t.close();
    }
  });

  it("an update whose customer moved after its read goes the transaction's way, which waits for the lock", async () => {
    const t = await makeTestApp('postgres');
    await t.app.requestLog.stop();
    const other = new pg.Client({ connectionString: t.storage.url });
    await other.connect();
    const created = await createAda(t, 'moved-1', 'moved@example.com');
    const id = created.json().id as string;
    // Right after the update's read, another writer changes the customer (a staff member, say).
    let moved = false;
    const trips = countingRoundTrips({
      ignore: other,
      after: async (text) => {
        if (moved || !/^select .*from "customers" where/s.test(text)) return;
        moved = true;
        await other.query(`update customers set nickname = 'Ada', version = version + 1 where id = $1`, [id]);
      },
    });
    const { sent } = trips;
    try {
      const updated = await nameCountess(t, id);
      expect(updated.statusCode).toBe(200);
      expect(updated.json()).toMatchObject({ nickname: 'Countess', version: '3' });
      // The one statement wrote nothing; the transaction took the row's lock and wrote it all.
      expect(sent[1]).toMatch(/^with written as \(update "customers"/);
      expect(sent.slice(2, 4)).toEqual(['begin', expect.stringMatching(/for update$/)]);
      expect(sent.at(-1)).toBe('commit');
    } finally {
      trips.restore();
    }
    try {
      const changes = await other.query(
        `select action, customer_version as version, before from change_log where object_id = $1 order by 2`,
        [id],
      );
      expect(changes.rows).toEqual([
        { action: 'customer.create', version: 1, before: null },
        { action: 'customer.update', version: 3, before: '{"nickname":"Ada"}' },
      ]);
      const events = await other.query(`select type, payload from webhook_events order by created_at, id`);
      const updates = events.rows.filter((e) => e.type === 'customer.updated').map((e) => JSON.parse(e.payload));
      expect(updates).toHaveLength(1);
      expect(updates[0].data.previous_attributes).toEqual({ nickname: 'Ada' });
    } finally {
      await other.end();
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
      await storage.db.transaction().execute(async (tx) => {
        await sql`insert into trips values (3)`.execute(tx);
        const inside = await sql<{ n: string }>`select count(*)::int as n from trips where id > ${0}`.execute(tx);
        expect(inside.rows).toEqual([{ n: 2 }]);
      });
      // A transaction that ran nothing sends its BEGIN and COMMIT.
      const trips = countingRoundTrips();
      try {
        await storage.db.transaction().execute(async () => undefined);
        expect(trips.sent).toEqual(['begin', 'commit']);
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
