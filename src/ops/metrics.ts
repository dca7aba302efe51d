import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../db/schema.ts';
import type { LimitEvents } from '../limits/limit-store.ts';
import { countPausedKeys } from '../resources/keys/key.repo.ts';
import { queueState } from '../resources/webhooks/webhook-outbox.repo.ts';
import { COMMIT, VERSION } from './build-info.ts';
import { metricsText, workerLabel } from './cluster-metrics.ts';

/** What the build was made from: the package version and the commit (scripts/bundle.mjs). */
const BUILD = { version: VERSION, commit: COMMIT };

/** The webhook queue: deliveries pending, and when the oldest of their events was made. */
async function webhookBacklog(db: Db): Promise<{ depth: number; oldest: number | null }> {
  const { pending, oldest } = await queueState(db);
  return { depth: pending, oldest };
}

/** The limit machinery as the metrics see it (src/limits/limit-store.ts). */
export interface LimitSignals {
  readonly events: LimitEvents;
  readonly degraded: boolean;
}

export interface MetricsOptions {
  db: Db;
  /** The pool's clients, when the engine has a pool (Engine.connections). */
  connections?: () => { inUse: number; idle: number; waiting: number } | null;
  /** SQLite's write-ahead log size (Engine.walBytes). */
  walBytes?: () => number | null;
  /** Scheduled backups are on: their counts are exported (src/jobs/scheduled-backups.ts). */
  backups?: boolean;
  limits?: LimitSignals | undefined;
}

/**
 * Prometheus metrics of one process (docs/operations.md), in a registry of its own so
 * several apps in one process (the tests) never share counters. Under `--workers N` the
 * supervisor sums the workers' counters and histograms (cluster-metrics.ts); what belongs to
 * one process carries its `worker` label, and what is read from the database is taken once.
 */
function createMetrics({ db, limits, connections, walBytes, backups }: MetricsOptions): Registry {
  const registry = new Registry();
  const worker = workerLabel();
  const own = worker ? (['worker'] as const) : [];
  collectDefaultMetrics({ register: registry, ...(worker ? { labels: worker } : {}) });
  // prom-client names these gauges `_total`, which promtool rejects as a counter's suffix; each
  // is the sum of its unsuffixed gauge by type (nodejs_active_handles…), which stays.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(name);
  }
  new Gauge({
    name: 'venue_api_build_info',
    help: 'Always 1: the version and commit of the build that serves, as labels.',
    labelNames: ['version', 'commit'],
    registers: [registry],
    aggregator: 'first',
  }).set(BUILD, 1);
  if (connections?.() != null) {
    new Gauge({
      name: 'venue_api_db_pool_connections',
      help: "The PostgreSQL pool's connections: in use by a request or a job, idle, and requests waiting for one.",
      labelNames: ['state', ...own],
      registers: [registry],
      collect() {
        const now = connections();
        if (!now) return;
        this.set({ ...worker, state: 'in_use' }, now.inUse);
        this.set({ ...worker, state: 'idle' }, now.idle);
        this.set({ ...worker, state: 'waiting' }, now.waiting);
      },
    });
  }
  if (walBytes?.() != null) {
    new Gauge({
      name: 'venue_api_sqlite_wal_bytes',
      help: "The SQLite database's write-ahead log, in bytes: it grows while a checkpoint cannot copy it back (a long read, a backup).",
      registers: [registry],
      collect() {
        this.set(walBytes() ?? 0);
      },
    });
  }
  if (backups) {
    new Counter({
      name: 'venue_api_backups_total',
      help: 'Scheduled backups by outcome: ok (copied and checked) or failed.',
      labelNames: ['outcome'],
      registers: [registry],
    });
    new Gauge({
      name: 'venue_api_backup_last_success_timestamp_seconds',
      help: 'When the last scheduled backup that passed its check ended (Unix time; 0 until one has).',
      registers: [registry],
    });
    new Gauge({
      name: 'venue_api_backup_last_size_bytes',
      help: 'The size of the last scheduled backup that passed its check, in bytes.',
      registers: [registry],
    });
  }
  new Counter({
    name: 'venue_api_http_requests_total',
    help: 'Answered requests by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  new Histogram({
    name: 'venue_api_http_request_duration_seconds',
    help: 'Time from request received to answer sent, by method and route pattern.',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  new Gauge({
    name: 'venue_api_keys_paused',
    help: 'API keys paused right now, in every workspace (read from the database at scrape).',
    registers: [registry],
    aggregator: 'first',
    async collect() {
      try {
        this.set(await countPausedKeys(db));
      } catch {
        // The database is away: keep the last value; /ready reports the outage.
      }
    },
  });
  new Counter({
    name: 'venue_api_webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this process, by outcome: delivered, retrying (failed, another attempt is due) or failed (no attempt left).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  new Histogram({
    name: 'venue_api_webhook_attempt_duration_seconds',
    help: 'Webhook delivery attempts made by this process: from the request sent to the answer read, or to the failure, by outcome.',
    labelNames: ['outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'venue_api_webhook_queue_depth',
    help: 'Webhook deliveries pending, and events waiting for theirs to be made, in every workspace (read from the database at scrape).',
    registers: [registry],
    aggregator: 'first',
    async collect() {
      try {
        this.set((await webhookBacklog(db)).depth);
      } catch {
        // The database is away: keep the last value.
      }
    },
  });
  new Gauge({
    name: 'venue_api_webhook_oldest_undelivered_seconds',
    help: 'Age of the oldest event with a delivery still pending, in seconds (0 when none is).',
    registers: [registry],
    aggregator: 'first',
    async collect() {
      try {
        const { oldest } = await webhookBacklog(db);
        this.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000));
      } catch {
        // The database is away: keep the last value.
      }
    },
  });
  new Counter({
    name: 'venue_api_activity_rows_dropped_total',
    help: 'Key activity rows given up: customer sends past the buffer cap while the database was away, and batches it refused.',
    registers: [registry],
  });
  new Counter({
    name: 'venue_api_request_log_rows_dropped_total',
    help: 'Request log rows given up: requests past the buffer cap while the database was away, and batches it refused.',
    registers: [registry],
  });
  if (limits) {
    const refused = new Counter({
      name: 'venue_api_rate_limited_total',
      help: 'Requests refused with 429, by the limit that refused them.',
      labelNames: ['limit'],
      registers: [registry],
    });
    const fallbacks = new Counter({
      name: 'venue_api_limit_store_fallbacks_total',
      help: 'Times the shared limit store (Redis) was lost and this process fell back to its own counts.',
      registers: [registry],
    });
    new Gauge({
      name: 'venue_api_limit_store_degraded',
      help: '1 while this process counts limits on its own because the shared store is unreachable.',
      labelNames: own,
      registers: [registry],
      collect() {
        this.set({ ...worker }, limits.degraded ? 1 : 0);
      },
    });
    limits.events.on('rate_limited', (limit) => refused.inc({ limit }));
    limits.events.on('store_fallback', () => fallbacks.inc());
    // A store opened while Redis was away fell back before anyone listened: count that too.
    if (limits.degraded) fallbacks.inc();
  }
  return registry;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
    /** What /metrics answers: this registry's text, or under `--workers N` every worker's. */
    metricsText: () => Promise<string>;
  }
}

/** Counts and times every answer; the route label is the pattern, never the raw URL. */
export const metricsPlugin = fp(async (app: FastifyInstance, options: MetricsOptions) => {
  const registry = createMetrics(options);
  const requests = registry.getSingleMetric('venue_api_http_requests_total') as Counter<'method' | 'route' | 'status'>;
  const latency = registry.getSingleMetric('venue_api_http_request_duration_seconds') as Histogram<'method' | 'route'>;
  app.decorate('metrics', registry);
  app.decorate('metricsText', metricsText(registry));
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });
});
