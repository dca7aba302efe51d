import type { AddressInfo } from 'node:net';
import { buildApp } from './app.ts';
import { loadConfig, postgresBounds } from './config.ts';
import { migrate, openStorage } from './db/index.ts';
import { demoBanner, listeningUrl, prepareDemo } from './demo.ts';
import { HourlyActivityCheck } from './jobs/activity-schedule.ts';
import { RetentionJobs } from './jobs/retention.ts';
import { systemClock } from './lib/time.ts';

/** Process entry: read config, open storage, listen, close gracefully on a signal. */
export async function serve(overrides: { port?: number; host?: string } = {}): Promise<void> {
  // Overrides go through loadConfig so what derives from them (baseUrl) agrees.
  const config = loadConfig({
    ...process.env,
    ...(overrides.port === undefined ? {} : { PORT: String(overrides.port) }),
    ...(overrides.host === undefined ? {} : { HOST: overrides.host }),
  });
  // A migration may build an index over every row, longer than a request may wait: it runs
  // on a storage of its own without the statement and lock timeouts, as the CLI's do.
  const migrating = await openStorage(config.databaseUrl, { postgres: postgresBounds(config, 'bulk') });
  try {
    await migrate(migrating);
  } finally {
    await migrating.close();
  }
  // Until the app's logger exists, a lost database connection is told on stderr.
  let connectionLost = (err: Error) => console.error(`database connection lost: ${err.message}`);
  const storage = await openStorage(config.databaseUrl, {
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
    sqliteCacheMiB: config.sqliteCacheMiB,
    sqliteBackgroundCheckpoint: true,
    postgres: { ...postgresBounds(config, 'requests'), onConnectionError: (err) => connectionLost(err) },
  });
  const demo = config.demo ? await prepareDemo(storage, systemClock) : ({ kind: 'none' } as const);
  const { app, keys } = await buildApp(config, { storage });
  connectionLost = (err) => app.log.warn({ err }, 'database connection lost; the pool connects anew');
  keys.start();
  app.activity.start();
  // DECISIONS "Unusual activity": hourly; the job lock and hour claim make it once in total.
  const activityCheck = new HourlyActivityCheck(
    { store: storage, engine: storage.engine, clock: systemClock, mail: config, log: app.log },
    { beforeRun: () => app.activity.flush() },
  );
  activityCheck.start();
  // DECISIONS: stored POST answers kept 24 hours, the change log 365 days.
  const retention = new RetentionJobs({ store: storage, engine: storage.engine, clock: systemClock, log: app.log });
  retention.start();
  // Planner statistics drift as tables grow; SQLite in particular then picks wrong indexes.
  const statistics = setInterval(() => {
    storage.engine.refreshStatistics(storage.db).catch((err) => app.log.warn({ err }, 'refreshing statistics failed'));
  }, 3_600_000).unref();
  if (storage.engine.name === 'postgres' && !config.redisUrl) {
    // DECISIONS "Limits": every limit holds across processes only through the shared store.
    app.log.warn('PostgreSQL without REDIS_URL: limits are counted per process; set REDIS_URL when running several');
  }
  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'closing: finishing in-flight requests');
    clearInterval(statistics);
    await Promise.all([activityCheck.stop(), retention.stop(), app.close()]);
    await storage.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  const bound = (app.server.address() as AddressInfo).port;
  process.stdout.write(`${demoBanner(demo, listeningUrl(config.baseUrl, config.host, bound))}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
