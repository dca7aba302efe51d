import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStorage, type Storage } from '../../src/db/index.ts';
import { openAppStorage } from '../../src/storage.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp } from '../helpers/app.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * dialects/postgres.ts: every statement with parameters goes to PostgreSQL as a named
 * statement, prepared once per connection, up to a bound per connection past which the
 * connection is replaced (dialects/pg-statements.ts, unit-tested in pg-statements.test.ts).
 * A pool of one connection makes pg_prepared_statements (which shows the session's own
 * statements) show what the server's requests left on it.
 */
describe.runIf(ENGINES.includes('postgres'))('named statements (postgres)', () => {
  let fresh: TestStorage;
  beforeAll(async () => {
    fresh = await freshStorage('postgres');
  });
  afterAll(() => fresh.drop());

  const prepared = async (storage: Storage) =>
    (
      await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(
        storage.db,
      )
    ).rows;

  it('prepares the customer read once on its connection and runs it again by name', async () => {
    const storage = await openAppStorage(fresh.url, { postgres: { poolSize: 1 } });
    const config = loadConfig({ BASE_URL: 'http://api.test', DATABASE_URL: fresh.url });
    const { app } = await buildApp(config, { storage, logger: false });
    try {
      await app.ready();
      const ws = await createWorkspace(storage, Date.now, { name: 'Named' });
      const { secret } = await createKey(storage, Date.now, {
        workspaceId: ws.id,
        name: 'k',
        mode: 'live',
        access: 'read_write',
      });
      const headers = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
      // The create's answer runs the read statement too (inside its transaction).
      const before = await prepared(storage);
      const created = await app.inject({
        method: 'POST',
        url: '/customers',
        headers: { ...headers, 'idempotency-key': 'named-1' },
        payload: { first_name: 'Ada', email: 'ada@example.com' },
      });
      expect(created.statusCode).toBe(201);
      const id = created.json().id as string;

      for (let i = 0; i < 2; i++) {
        const res = await app.inject({ method: 'GET', url: `/customers/${id}`, headers });
        expect(res.statusCode).toBe(200);
      }
      const after = await prepared(storage);
      const reads = after.filter(
        (s) => /from "customers" where/.test(s.statement) && /"customers"\."id" = \$\d+$/.test(s.statement),
      );
      expect(reads).toHaveLength(1);
      expect(reads[0]!.name).toMatch(/^v_/);
      // Two more reads of another customer prepare nothing new: the same shape runs by name.
      // (Only the customers' statements: the request log and key activity write on timers of
      // their own, and may prepare a batch's shape on this connection meanwhile.)
      await app.inject({ method: 'GET', url: '/customers/cus_doesnotexist000000000', headers });
      await app.inject({ method: 'GET', url: `/customers/${id}`, headers });
      const customerStatements = (rows: { name: string; statement: string }[]) =>
        rows
          .filter((s) => /from "customers"/.test(s.statement))
          .map((s) => s.name)
          .sort();
      expect(customerStatements(await prepared(storage))).toEqual(customerStatements(after));
      expect(after.length).toBeGreaterThan(before.length);
    } finally {
      await app.close();
      await storage.close();
    }
  });

  const backend = async (storage: Storage) =>
    (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(storage.db)).rows[0]!.pid;

  it('keeps at most the bound of statements on a connection; past it, runs the statement unnamed and replaces the connection', async () => {
    const storage = await openStorage(fresh.url, { postgres: { poolSize: 1, preparedPerConnection: 3 } });
    try {
      const shapes = [1, 2, 3, 4].map(
        (n) => (value: number) => sql<{ v: number }>`select ${value}::int + ${sql.raw(String(n))} as v`,
      );
      const first = await backend(storage);
      for (const [i, shape] of shapes.slice(0, 3).entries()) {
        expect((await shape(10).execute(storage.db)).rows).toEqual([{ v: 10 + i + 1 }]);
      }
      expect((await prepared(storage)).map((s) => s.statement).sort()).toEqual([
        'select $1::int + 1 as v',
        'select $1::int + 2 as v',
        'select $1::int + 3 as v',
      ]);
      expect(await backend(storage)).toBe(first);
      // The fourth shape runs all the same, unnamed, and its connection goes at its release.
      expect((await shapes[3]!(10).execute(storage.db)).rows).toEqual([{ v: 14 }]);
      const second = await backend(storage);
      expect(second).not.toBe(first);
      expect(await prepared(storage)).toEqual([]);
      expect((await shapes[3]!(1).execute(storage.db)).rows).toEqual([{ v: 5 }]);
      expect((await prepared(storage)).map((s) => s.statement)).toEqual(['select $1::int + 4 as v']);
      expect(await backend(storage)).toBe(second);
    } finally {
      await storage.close();
    }
  });

  it('runs again, parsed anew, a statement whose table changed shape under it, and replaces the connection', async () => {
    const storage = await openStorage(fresh.url, { postgres: { poolSize: 1 } });
    try {
      await sql`create table shape_change (id int primary key, a text)`.execute(storage.db);
      await sql`insert into shape_change values (1, 'x')`.execute(storage.db);
      const read = () => sql<Record<string, unknown>>`select * from shape_change where id = ${1}`.execute(storage.db);
      expect((await read()).rows).toEqual([{ id: 1, a: 'x' }]);
      const first = await backend(storage);
      await sql`alter table shape_change add column b text default 'y'`.execute(storage.db);
      expect((await read()).rows).toEqual([{ id: 1, a: 'x', b: 'y' }]);
      expect(await backend(storage)).not.toBe(first);
      // Prepared again on the new connection; inside a transaction the statement cannot go
      // again: the answer is a retryable 503's error.
      expect((await read()).rows).toEqual([{ id: 1, a: 'x', b: 'y' }]);
      await sql`alter table shape_change add column c text default 'z'`.execute(storage.db);
      await expect(
        storage.db.transaction().execute((tx) => sql`select * from shape_change where id = ${1}`.execute(tx)),
      ).rejects.toMatchObject({
        name: 'DatabaseUnavailable',
        reason: 'busy',
      });
      expect((await read()).rows).toEqual([{ id: 1, a: 'x', b: 'y', c: 'z' }]);
    } finally {
      await storage.close();
    }
  });

  it('a read is one statement: the key comes from the process’s cache', async () => {
    const t = await makeTestApp('postgres');
    // The request log writes its batch on a timer of its own: stopped, so only the reads' trips are counted.
    await t.app.requestLog.stop();
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    try {
      const created = await t.call(t.keys.live, {
        method: 'POST',
        url: '/customers',
        headers: { 'idempotency-key': 'one-trip' },
        payload: { first_name: 'Ada', email: 'ada@example.com' },
      });
      const id = created.json().id as string;
      await t.call(t.keys.live, { method: 'GET', url: `/customers/${id}` });
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
        const q = args[0] as string | { text: string };
        sent.push(typeof q === 'string' ? q : q.text);
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      for (const url of [`/customers/${id}`, '/customers?limit=100']) {
        sent.length = 0;
        expect((await t.call(t.keys.live, { method: 'GET', url })).statusCode).toBe(200);
        expect(sent).toHaveLength(1);
        expect(sent[0]).toMatch(/from "customers"/);
      }
    } finally {
      pg.Client.prototype.query = query;
      await t.close();
    }
  });
});
