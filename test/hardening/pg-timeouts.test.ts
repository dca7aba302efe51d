import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig, postgresBounds } from '../../src/config.ts';
import { openStorage, pingDatabase, type Storage } from '../../src/db/index.ts';
import { openAppStorage } from '../../src/storage.ts';
import { unavailableReason } from '../../src/db/unavailable.ts';
import { freePort } from '../limits/private-redis.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import {
  injectSend,
  isUnavailable,
  loadTenant,
  storedOnce,
  writeLoad,
  type Answer,
  type Send,
} from '../helpers/write-load.ts';

/**
 * PostgreSQL that does not answer in time: a table locked past the lock timeout, a statement
 * past the statement timeout, a pool with no free connection, a database silent on the
 * network (a proxy that stops forwarding), one that refuses connections. Each is a 503 with
 * Retry-After within its timeout (plus slack for a loaded machine), never a request left
 * waiting on the database, and each clears by itself.
 */
const env = {
  BASE_URL: 'http://api.test',
  PG_CONNECT_TIMEOUT_MS: '1000',
  PG_STATEMENT_TIMEOUT_MS: '2000',
  PG_LOCK_TIMEOUT_MS: '1000',
};
const config = loadConfig(env);
const SLACK_MS = 4_000;

/** The app in process on a storage with the server's bounds, at `url` (the database itself or a proxy to it). */
async function boundedApp(
  direct: TestStorage,
  url: string,
): Promise<{ app: FastifyInstance; storage: Storage; send: Send; close(): Promise<void> }> {
  const secret = await loadTenant(direct);
  const storage = await openAppStorage(url, { postgres: postgresBounds(config, 'requests') });
  const { app } = await buildApp(config, { storage, logger: false });
  await app.ready();
  return {
    app,
    storage,
    send: injectSend(app, secret),
    close: async () => {
      await app.close();
      await storage.close();
    },
  };
}

const write = (send: Send, key = randomUUID()) =>
  send('POST', '/customers', { first_name: 'Waiting' }, { 'idempotency-key': key });

function expectUnavailableWithin(answers: Answer[], boundMs: number) {
  for (const a of answers) {
    expect(isUnavailable(a), `${a.status} ${a.body}`).toBe(true);
    expect(a.ms).toBeLessThan(boundMs);
  }
}

describe.skipIf(!ENGINES.includes('postgres'))('PostgreSQL past its timeouts', () => {
  it('PG_CONNECT_TIMEOUT_MS, PG_STATEMENT_TIMEOUT_MS and PG_LOCK_TIMEOUT_MS are a few seconds unless set, and bounded', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({
      pgConnectTimeoutMs: 2_000,
      pgStatementTimeoutMs: 5_000,
      pgLockTimeoutMs: 2_000,
      pgKeepAliveMs: 10_000,
    });
    expect(() => loadConfig({ PG_STATEMENT_TIMEOUT_MS: '0' })).toThrow(/PG_STATEMENT_TIMEOUT_MS/);
    expect(() => loadConfig({ PG_CONNECT_TIMEOUT_MS: 'soon' })).toThrow(/PG_CONNECT_TIMEOUT_MS/);
    // The CLI's bulk work keeps the connect timeout but has no statement or lock timeout.
    expect(postgresBounds(defaults, 'bulk')).toEqual({ poolSize: 10, connectTimeoutMs: 2_000, keepAliveMs: 10_000 });
    // The pool's size goes to both, and is bounded too.
    expect(postgresBounds(loadConfig({ PG_POOL_SIZE: '4' }), 'requests')).toMatchObject({ poolSize: 4 });
    expect(() => loadConfig({ PG_POOL_SIZE: '0' })).toThrow(/PG_POOL_SIZE/);
  });

  describe('a table locked past the lock timeout', () => {
    let direct: TestStorage;
    let bounded: Awaited<ReturnType<typeof boundedApp>>;
    beforeAll(async () => {
      direct = await freshStorage('postgres');
      bounded = await boundedApp(direct, direct.url);
    });
    afterAll(async () => {
      await bounded?.close();
      await direct?.drop();
    });

    it('writes and a list answer 503 with Retry-After within the lock timeout, write nothing, and succeed once it is free', async () => {
      const holder = new pg.Client({ connectionString: direct.url });
      holder.on('error', () => undefined);
      await holder.connect();
      const pid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      await holder.query('begin; lock table customers in access exclusive mode');
      // Held far longer than any answer may take: an answer after its end would be a hang.
      const held = holder.query('select pg_sleep(30)').catch(() => undefined);
      const keys = Array.from({ length: 8 }, () => randomUUID());
      try {
        const answers = await Promise.all([
          ...keys.map((key) => write(bounded.send, key)),
          bounded.send('GET', '/customers?limit=10'),
          bounded.send('GET', '/customers?limit=10'),
        ]);
        expectUnavailableWithin(answers, config.pgLockTimeoutMs + SLACK_MS);
        expect((await bounded.app.inject({ url: '/health' })).statusCode).toBe(200);
      } finally {
        await direct.db.selectNoFrom((eb) => eb.fn('pg_cancel_backend', [eb.val(pid)]).as('ok')).execute();
        await held;
        await holder.query('rollback');
        await holder.end();
      }
      const customers = async () =>
        Number(
          (
            await direct.db
              .selectFrom('customers')
              .select((eb) => eb.fn.countAll<string>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await customers()).toBe(0);
      for (const key of keys) expect((await write(bounded.send, key)).status).toBe(201);
      expect(await customers()).toBe(keys.length);
    });

    it('a statement past the statement timeout is cancelled and told apart as a timeout; the connection serves on', async () => {
      const started = Date.now();
      const err = await bounded.storage.db
        .selectNoFrom((eb) => eb.fn('pg_sleep', [eb.val(30)]).as('slept'))
        .execute()
        .catch((e: unknown) => e);
      expect(unavailableReason(err)).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(config.pgStatementTimeoutMs + SLACK_MS);
      expect(await pingDatabase(bounded.storage.db)).toBe(true);
      // The hourly ANALYZE runs on a connection of its own, without the pool's timeouts.
      await bounded.storage.engine.refreshStatistics(bounded.storage.db);
      expect(await pingDatabase(bounded.storage.db)).toBe(true);
    });

    it('with every connection of the pool busy, the next request gives up after the connect timeout', async () => {
      const small = await openStorage(direct.url, { postgres: { ...postgresBounds(config, 'requests'), poolSize: 1 } });
      try {
        const busy = small.db.selectNoFrom((eb) => eb.fn('pg_sleep', [eb.val(1.5)]).as('slept')).execute();
        const started = Date.now();
        const err = await small.db
          .selectNoFrom((eb) => eb.val(1).as('one'))
          .execute()
          .catch((e: unknown) => e);
        expect(unavailableReason(err)).toBe('timeout');
        expect(Date.now() - started).toBeLessThan(config.pgConnectTimeoutMs + SLACK_MS);
        await busy;
      } finally {
        await small.close();
      }
    });
  });

  describe('a database silent on the network', () => {
    let direct: TestStorage;
    let proxy: TcpProxy;
    let bounded: Awaited<ReturnType<typeof boundedApp>>;
    beforeAll(async () => {
      direct = await freshStorage('postgres');
      const target = new URL(direct.url);
      proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
      const proxied = new URL(direct.url);
      proxied.port = String(proxy.port);
      bounded = await boundedApp(direct, proxied.toString());
    });
    afterEach(() => proxy.restore());
    afterAll(async () => {
      await bounded?.close();
      await proxy?.close();
      await direct?.drop();
    });

    it('requests answer 503 within the timeouts while nothing is forwarded, and succeed once it is again', async () => {
      const load = writeLoad(bounded.send, { clients: 8, prefix: 'silent' });
      try {
        await load.acknowledgedMore(20, 20_000);
        proxy.blackHole();
        const answers = await Promise.all([write(bounded.send), bounded.send('GET', '/customers?limit=10')]);
        const bound = config.pgConnectTimeoutMs + config.pgStatementTimeoutMs + 1_000 + SLACK_MS;
        expectUnavailableWithin(answers, bound);
        // The readiness probe's query is bounded too, whatever the pool does.
        const pingStarted = Date.now();
        await expect(pingDatabase(bounded.storage.db, 500)).rejects.toThrow(/did not answer in time/);
        expect(Date.now() - pingStarted).toBeLessThan(500 + SLACK_MS);
        proxy.restore();
        await load.acknowledgedMore(20, 30_000);
      } finally {
        await load.stop();
      }
      const report = load.report;
      expect(report.unavailable).toBeGreaterThan(0);
      expect(report.unexpected.map((a) => `${a.status} ${a.body.slice(0, 200)}`)).toEqual([]);
      expect(report.slowestMs).toBeLessThan(config.pgConnectTimeoutMs + config.pgStatementTimeoutMs + 1_000 + SLACK_MS);
      expect(await storedOnce(direct.db, report, 'silent')).toEqual([]);
    });
  });

  it('a database that refuses connections is told apart as down, at once', async () => {
    const refused = await openStorage(`postgres://postgres@127.0.0.1:${await freePort()}/none`, {
      postgres: postgresBounds(config, 'requests'),
    });
    try {
      const started = Date.now();
      const err = await pingDatabase(refused.db).catch((e: unknown) => e);
      expect(unavailableReason(err)).toBe('down');
      expect(Date.now() - started).toBeLessThan(config.pgConnectTimeoutMs + SLACK_MS);
    } finally {
      await refused.close();
    }
  });
});
