import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { buildApp } from './app.ts';
import { logSchema, type SchemaReport, superviseWorkers } from './cluster.ts';
import { type Config, ConfigError, loadConfig, postgresBounds } from './config.ts';
import { isPostgresUrl, openStorage } from './db/index.ts';
import { missingMigrationsMessage, prepareSchema } from './db/migrate.ts';
import { schemaState } from './db/schema-state.ts';
import { migrations } from './db/migrations/index.ts';
import { demoBanner, type DemoOutcome, listeningUrl, prepareDemo } from './demo.ts';
import { HourlyActivityCheck } from './jobs/activity-schedule.ts';
import { RetentionJobs } from './jobs/retention.ts';
import { UndoJobWorker } from './jobs/undo-jobs.ts';
import { WebhookWorker } from './jobs/webhook-worker.ts';
import { systemClock } from './lib/time.ts';
import type { Tracing } from './ops/tracing.ts';
import { type AppStorage, openAppStorage } from './storage.ts';

export interface ServeOverrides {
  port?: number;
  host?: string;
  workers?: number;
}

/** The server's storage: short waits, since a request is better answered 503 than kept waiting. */
function openServerStorage(config: Config, onConnectionError: (err: Error) => void): Promise<AppStorage> {
  return openAppStorage(config.databaseUrl, {
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
    sqliteCacheMiB: config.sqliteCacheMiB,
    postgres: { ...postgresBounds(config, 'requests'), onConnectionError },
  });
}

/**
 * The schema step of a start (MIGRATE): `auto` migrates, `off` only looks. A migration may
 * build an index over every row, longer than a request may wait: it runs on a storage of its
 * own without the statement and lock timeouts, as the CLI's do.
 */
async function schemaStep(config: Config): Promise<SchemaReport> {
  const migrating = await openStorage(config.databaseUrl, { postgres: postgresBounds(config, 'bulk') });
  try {
    let schema = await prepareSchema(migrating, config.migrate);
    // MIGRATE=off on a database with no schema at all: nothing could serve, not even /ready,
    // so the process waits for `venue-api migrate` before it listens.
    if (schema.missing.length === Object.keys(migrations).length) {
      console.error(
        `not ready: ${missingMigrationsMessage(schema.missing)}; waiting for it before listening (MIGRATE=off)`,
      );
      while (schema.missing.length === Object.keys(migrations).length) {
        await new Promise((r) => setTimeout(r, 1_000));
        schema = await prepareSchema(migrating, 'off');
      }
    }
    return schema;
  } finally {
    await migrating.close();
  }
}

/** The demo of a first start, only on a schema this version runs on (DEMO=off skips it). */
async function demoStep(config: Config, storage: AppStorage, schema: SchemaReport): Promise<DemoOutcome> {
  if (!config.demo || schema.missing.length > 0) return { kind: 'none' };
  return prepareDemo(storage, systemClock);
}

/**
 * Process entry. One process serves by default; `--workers N` (WORKERS) makes this one the
 * supervisor of N serving processes on one port (src/cluster.ts). A worker runs this same entry
 * again and only serves: its supervisor already ran the schema step and the demo.
 */
export async function serve(overrides: ServeOverrides = {}): Promise<void> {
  // Overrides go through loadConfig so what derives from them (baseUrl) agrees.
  const config = loadConfig({
    ...process.env,
    ...(overrides.port === undefined ? {} : { PORT: String(overrides.port) }),
    ...(overrides.host === undefined ? {} : { HOST: overrides.host }),
    ...(overrides.workers === undefined ? {} : { WORKERS: String(overrides.workers) }),
  });
  // First, before the database and Redis drivers load: their instrumentations patch them as
  // they do. Not in a supervisor, which serves nothing.
  const supervisor = !cluster.isWorker && config.workers > 1;
  const tracing = config.tracing && !supervisor ? (await import('./ops/tracing.ts')).startTracing() : null;
  if (cluster.isWorker) {
    await runServer(config, { kind: 'none' }, null, tracing);
    return;
  }
  if (config.workers > 1) {
    if (!isPostgresUrl(config.databaseUrl)) {
      throw new ConfigError(
        `WORKERS=${config.workers} needs PostgreSQL: SQLite has one writer, so several processes would only queue ` +
          'on its write lock; run one process, or move to PostgreSQL (docs/operations.md "Several processes")',
      );
    }
    const schema = await schemaStep(config);
    const storage = await openServerStorage(config, (err) => console.error(`database connection lost: ${err.message}`));
    let demo: DemoOutcome;
    try {
      demo = await demoStep(config, storage, schema);
    } finally {
      await storage.close();
    }
    await superviseWorkers(config, {
      schema,
      onListening: (port) =>
        process.stderr.write(`${demoBanner(demo, listeningUrl(config.baseUrl, config.host, port))}\n`),
    });
    return;
  }
  const schema = await schemaStep(config);
  await runServer(config, null, schema, tracing);
}

/** BACKUP_INTERVAL_MINUTES: the schedule, each outcome counted in /metrics and logged. */
async function backupSchedule(app: FastifyInstance, settings: NonNullable<Config['backups']>) {
  // Loaded only when asked for: it brings the SQLite driver, which a PostgreSQL server never loads.
  const { ScheduledBackups } = await import('./jobs/scheduled-backups.ts');
  const metric = <T>(name: string) => app.metrics.getSingleMetric(name) as T;
  const outcomes = metric<Counter<'outcome'>>('venue_api_backups_total');
  const lastSuccess = metric<Gauge>('venue_api_backup_last_success_timestamp_seconds');
  const lastSize = metric<Gauge>('venue_api_backup_last_size_bytes');
  return new ScheduledBackups({
    ...settings,
    onBackup: (report) => {
      outcomes.inc({ outcome: 'ok' });
      lastSuccess.set(Date.now() / 1000);
      lastSize.set(report.bytes);
      app.log.info({ backup: report.file, bytes: report.bytes, seconds: report.seconds }, 'scheduled backup taken');
    },
    onFailure: (err) => {
      outcomes.inc({ outcome: 'failed' });
      app.log.error({ err }, 'scheduled backup failed; the next is tried at its time');
    },
  });
}

/**
 * Opens storage, builds the app, starts the jobs and listens; closes gracefully on SIGTERM or
 * SIGINT. `demo` null: make the first start's demo here (one process); a worker gets none.
 */
async function runServer(
  config: Config,
  demoDone: DemoOutcome | null,
  schema: SchemaReport | null,
  tracing: Tracing | null,
): Promise<void> {
  // Until the app's logger exists, a lost database connection is told on stderr.
  let connectionLost = (err: Error) => console.error(`database connection lost: ${err.message}`);
  const storage = await openServerStorage(config, (err) => connectionLost(err));
  const demo = demoDone ?? (await demoStep(config, storage, schema ?? { applied: [], missing: [], unknown: [] }));
  let draining = false;
  // MIGRATE=off on a schema behind this version: the API answers 503 until `venue-api migrate` ran.
  let missing = schema?.missing ?? [];
  const schemaBehind = () => (missing.length > 0 ? missingMigrationsMessage(missing) : null);
  const { app, keys } = await buildApp(config, {
    storage,
    draining: () => draining,
    schemaBehind,
    ...(tracing ? { tracing } : {}),
  });
  const schemaWatch = setInterval(() => {
    if (missing.length === 0) return clearInterval(schemaWatch);
    schemaState(storage.db).then(
      (state) => {
        missing = state.missing;
      },
      () => {},
    );
  }, 5_000).unref();
  connectionLost = (err) => app.log.warn({ err }, 'database connection lost; the pool connects anew');
  if (schema) logSchema(app.log, schema);
  keys.start();
  app.activity.start();
  // DECISIONS "Unusual activity": hourly; the job lock and hour claim make it once in total.
  const activityCheck = new HourlyActivityCheck(
    { store: storage, engine: storage.engine, clock: systemClock, mail: config, log: app.log },
    { beforeRun: () => app.activity.flush() },
  );
  activityCheck.start();
  // DECISIONS: stored POST answers kept 24 hours, the change log 365 days.
  const retention = new RetentionJobs({
    store: storage,
    engine: storage.engine,
    clock: systemClock,
    eventRetentionDays: config.eventRetentionDays,
    requestLogDays: config.requestLogDays,
    log: app.log,
  });
  retention.start();
  // DECISIONS "Webhooks": every process delivers; claims keep two from making the same attempt.
  const deliveries = app.metrics.getSingleMetric('venue_api_webhook_deliveries_total') as Counter<'outcome'>;
  const attemptTimes = app.metrics.getSingleMetric(
    'venue_api_webhook_attempt_duration_seconds',
  ) as Histogram<'outcome'>;
  const webhooks = new WebhookWorker({
    store: storage,
    engine: storage.engine,
    clock: systemClock,
    mail: config,
    allowPrivate: config.webhookAllowPrivate,
    retrySchedule: config.webhookRetrySchedule,
    log: app.log,
    onOutcome: (outcome, seconds) => {
      deliveries.inc({ outcome });
      attemptTimes.observe({ outcome }, seconds);
    },
  });
  webhooks.start();
  // The console's undos: every process runs them; a claim keeps each job to one process.
  const undos = new UndoJobWorker({ store: storage, clock: systemClock, log: app.log });
  undos.start();
  const backups = config.backups ? await backupSchedule(app, config.backups) : null;
  backups?.start();
  // Planner statistics drift as tables grow; SQLite in particular then picks wrong indexes.
  const statistics = setInterval(() => {
    storage.engine.refreshStatistics(storage.db).catch((err) => app.log.warn({ err }, 'refreshing statistics failed'));
  }, 3_600_000).unref();
  if (storage.engine.name === 'postgres' && !config.redisUrl) {
    // DECISIONS "Limits": every limit holds across processes only through the shared store.
    app.log.warn('PostgreSQL without REDIS_URL: limits are counted per process; set REDIS_URL when running several');
  }
  let closing = false;
  const shutdown = async (signal: string) => {
    // A terminal's Ctrl-C reaches a worker twice: from the terminal and from its supervisor.
    if (closing) return;
    closing = true;
    if (config.shutdownDelayMs > 0) {
      // Out of the balancer first (/ready says 503), serving meanwhile; then close.
      draining = true;
      app.log.info({ signal, delay_ms: config.shutdownDelayMs }, 'draining: not ready, still serving');
      await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
    }
    app.log.info({ signal }, 'closing: finishing in-flight requests');
    clearInterval(statistics);
    await Promise.all([
      activityCheck.stop(),
      retention.stop(),
      webhooks.stop(),
      undos.stop(),
      backups?.stop(),
      app.close(),
    ]);
    await storage.close();
    await tracing?.shutdown();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  if (cluster.isWorker) return; // the supervisor prints the banner once, for every worker
  const bound = (app.server.address() as AddressInfo).port;
  process.stderr.write(`${demoBanner(demo, listeningUrl(config.baseUrl, config.host, bound))}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
