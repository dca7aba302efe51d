import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { migrate, openStorage, type Storage } from '../../src/db/index.ts';
import { PgCluster } from '../helpers/pg-cluster.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { ENGINES } from '../helpers/storage.ts';
import { httpSend, loadTenant, storedOnce, writeLoad, type LoadReport } from '../helpers/write-load.ts';

/**
 * PostgreSQL going away under the built server: stopped and started again, and its backends
 * terminated, while 8 clients write. On a cluster of the test's own (never the shared one).
 * The process lives; every answer is a 2xx or a 503 problem with Retry-After, none later than
 * the timeouts allow; every acknowledged write is stored exactly once; and the server
 * recovers by itself (DECISIONS "HTTP and errors").
 */
const CLIENTS = 8;
const defaults = loadConfig({});
/** The longest a request may wait on the database: a connection, a statement, the read slack, and room for a loaded machine. */
const BOUND_MS = defaults.pgConnectTimeoutMs + defaults.pgStatementTimeoutMs + 1_000 + 3_000;

describe.skipIf(!ENGINES.includes('postgres'))('PostgreSQL outages under the server process', () => {
  let cluster: PgCluster;
  let storage: Storage;
  let server: ServerProcess;
  let secret: string;

  beforeAll(async () => {
    cluster = await PgCluster.create();
    const url = await cluster.createDatabase('venue');
    storage = await openStorage(url);
    await migrate(storage);
    secret = await loadTenant(storage);
    server = await startServer({ DATABASE_URL: url, DEMO: 'off' });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await storage?.close();
    await cluster?.destroy();
  });

  /** Load, then the fault, then load again until `recovered` more writes are acknowledged. */
  async function underLoad(prefix: string, fault: () => Promise<void>): Promise<LoadReport> {
    const load = writeLoad(httpSend(server.url, secret, BOUND_MS * 2), { clients: CLIENTS, prefix });
    try {
      await load.acknowledgedMore(40, 20_000);
      await fault();
      // Recovers by itself: no restart of the server, no operator.
      await load.acknowledgedMore(40, 20_000);
    } finally {
      await load.stop();
    }
    return load.report;
  }

  function expectSurvived(report: LoadReport) {
    expect(server.child.exitCode, server.output()).toBeNull();
    expect(server.child.signalCode).toBeNull();
    expect(report.unexpected.map((a) => `${a.status} ${a.body.slice(0, 200)}`)).toEqual([]);
    expect(report.slowestMs).toBeLessThan(BOUND_MS);
  }

  it('stopped and started again: 503s with Retry-After while it is down, then writes again, each stored once', async () => {
    const report = await underLoad('restart', async () => {
      await cluster.stop('fast');
      await sleep(1_500);
      await cluster.start();
    });
    expectSurvived(report);
    expect(report.unavailable).toBeGreaterThan(0);
    expect(await storedOnce(storage.db, report, 'restart')).toEqual([]);
  });

  it('its backends terminated, three times: the lost connections are dropped and new ones made', async () => {
    const report = await underLoad('terminated', async () => {
      for (let i = 0; i < 3; i++) {
        // The server connects again as its load needs: wait (bounded) until it has, then cut.
        await vi.waitFor(async () => expect(await cluster.terminateBackends('venue')).toBeGreaterThan(0), {
          timeout: 10_000,
          interval: 100,
        });
        await sleep(300);
      }
    });
    expectSurvived(report);
    expect(await storedOnce(storage.db, report, 'terminated')).toEqual([]);
    expect(server.output()).toContain('database connection lost');
  });
});
