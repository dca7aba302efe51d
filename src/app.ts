import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyPluginCallback, LogController } from 'fastify';
import type { Counter } from 'prom-client';
import type { Config } from './config.ts';
import { consolePlugin } from './console/console.plugin.ts';
import type { AppStorage } from './storage.ts';
import { unavailableReason } from './db/unavailable.ts';
import { access } from './http/access.ts';
import { activityTracking } from './http/activity.ts';
import { backpressure } from './http/backpressure.ts';
import { auth } from './http/auth.ts';
import { idempotency } from './http/idempotency.ts';
import { holdBlockedAddress, rateLimit, refuseByAddress } from './http/rate-limit.ts';
import { apiDocsRoutes } from './http/api-docs.ts';
import { errorDocsRoute } from './http/error-docs.ts';
import { openApiRoute, registerOpenApi } from './http/openapi.ts';
import { clientErrorHandler, followAnswers } from './http/client-errors.ts';
import { refuseWhileClosing } from './http/closing.ts';
import { installJsonBodyParser } from './http/json-body.ts';
import { frameworkErrors, installProblemHandlers } from './http/problems.ts';
import { securityHeaders } from './http/security-headers.ts';
import { strictRequest } from './http/strict-request.ts';
import { CURRENT_VERSION, newRequestId, requestContext, versionCheck } from './http/request-context.ts';
import { Problem } from './http/schemas.ts';
import { sharedSerializers } from './http/serializers.ts';
import { installValidators } from './http/validation.ts';
import { ActivityTracker } from './jobs/activity-tracker.ts';
import { systemClock, type Clock } from './lib/time.ts';
import { traceIds } from './lib/trace.ts';
import type { LimitStore } from './limits/limit-store.ts';
import { openLimitStore } from './limits/open-store.ts';
import { metricsPlugin } from './ops/metrics.ts';
import { opsRoutes } from './ops/ops.routes.ts';
import { resourceRoutes } from './resources/api.routes.ts';
import { schemaGate } from './http/schema-gate.ts';
import { OutageLog } from './lib/outage-log.ts';
import { RequestLogWriter } from './jobs/request-log-writer.ts';
import { insertRequestRows } from './resources/request-log/request-log.repo.ts';
import { requestLogging } from './http/request-log.ts';
import { KeyCache } from './resources/keys/key.cache.ts';

export interface AppDeps {
  storage: AppStorage;
  clock?: Clock;
  keys?: KeyCache;
  logger?: boolean | object;
  /** True once a SIGTERM arrived and the process serves out SHUTDOWN_DELAY_MS: /ready then says 503. */
  draining?: () => boolean;
  /** Why the API cannot serve on this schema yet (migrations it lacks), or null: it then answers 503. */
  schemaBehind?: () => string | null;
  /** A limit store the caller owns (and closes); without it one is opened from the config. */
  limitStore?: LimitStore;
  /** The request spans' plugin when tracing is on (src/ops/tracing.ts); every log line then names its span. */
  tracing?: { plugin: FastifyPluginCallback };
}

export interface App {
  app: FastifyInstance;
  keys: KeyCache;
  /** Also `app.limitStore`; its `events` feed the metrics (src/limits/limit-store.ts). */
  limitStore: LimitStore;
}

/** The Fastify instance with its plugins and routes; it does not listen (CONVENTIONS 1). */
export async function buildApp(config: Config, deps: AppDeps): Promise<App> {
  const clock = deps.clock ?? systemClock;
  // The logger exists only once Fastify does; answers below the API log through it.
  let log: FastifyInstance['log'] | null = null;
  const keys =
    deps.keys ??
    new KeyCache(deps.storage.db, config.keyRefreshMs, clock, {
      failed: (err) => keyPolls?.failed(err),
      succeeded: () => keyPolls?.succeeded(),
    });
  let keyPolls: OutageLog | null = null;
  // DECISIONS: HTTPS directly when TLS_CERT and TLS_KEY name PEM files, else behind a proxy.
  // Slow clients: a request must arrive in full within REQUEST_TIMEOUT_MS,
  // headers included, and Node checks for late ones every second (its default is every 30 s).
  const timing = {
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: Math.min(config.requestTimeoutMs, 60_000),
    connectionsCheckingInterval: Math.min(1_000, config.requestTimeoutMs),
  };
  const server =
    config.tlsCert && config.tlsKey
      ? { https: { ...timing, cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } }
      : { http: timing };
  const app = Fastify({
    ...server,
    requestTimeout: config.requestTimeoutMs,
    // Node's socket timeout: nothing read, no write completed and none progressing for this long.
    connectionTimeout: config.connectionIdleTimeoutMs,
    clientErrorHandler: clientErrorHandler(config.errorsUrl, () => log!),
    // The query string can hold a customer's email (GET /customers?email=): log the path only.
    logger:
      deps.logger === false
        ? false
        : {
            level: config.logLevel,
            ...(deps.tracing ? { mixin: traceIds } : {}),
            ...(typeof deps.logger === 'object' ? deps.logger : {}),
            serializers: {
              req: (req: { method: string; url: string; ip?: string }) => ({
                method: req.method,
                url: req.url.split('?')[0],
                remoteAddress: req.ip,
              }),
            },
          },
    genReqId: newRequestId,
    // One line per request (request-context.ts), not Fastify's two (received, completed).
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    bodyLimit: 64 * 1024,
    trustProxy: config.trustProxy as boolean | string, // a number (hops) is accepted too
    // A request that arrives while closing is a 503 problem from src/http/closing.ts instead.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    frameworkErrors: frameworkErrors(config.errorsUrl, CURRENT_VERSION),
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers() } },
  });
  log = app.log;
  keyPolls = new OutageLog(app.log, 'refreshing the key cache');
  // Connections past the cap are closed as they arrive (net.Server's maxConnections).
  app.server.maxConnections = config.maxConnections;
  // What the client error handler needs to know of the answers under way.
  followAnswers(app.server);
  app.addSchema(Problem);
  installValidators(app, [Problem]);
  installProblemHandlers(app, config.errorsUrl);
  // DECISIONS "HTTP and errors": a body that is not application/json is a 415, text too.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  await registerOpenApi(app, config.baseUrl);
  // Before every route, which it wraps: a span per request, the rest of the request inside it.
  if (deps.tracing) await app.register(deps.tracing.plugin);

  // First: a request waits here, before any work, while its connection's answers go unread.
  await app.register(backpressure);
  await app.register(requestContext);
  await app.register(refuseWhileClosing);
  if (deps.schemaBehind) await app.register(schemaGate, { behind: deps.schemaBehind });
  await app.register(securityHeaders);
  const limitStore = deps.limitStore ?? (await openLimitStore(config, deps.storage, clock(), app.log));
  if (!deps.limitStore) app.addHook('onClose', async () => limitStore.close());
  app.decorate('limitStore', limitStore);
  await app.register(metricsPlugin, {
    db: deps.storage.db,
    limits: limitStore,
    connections: () => deps.storage.engine.connections(),
    walBytes: () => deps.storage.engine.walBytes(),
    backups: config.backups !== null,
  });
  const limiting = { store: limitStore, clock };
  await app.register(auth, {
    keys,
    clock,
    onRefused: refuseByAddress(limiting),
    beforeLookup: holdBlockedAddress(limiting),
  });
  await app.register(rateLimit, limiting);
  // After the limit check, so their refusals of a valid key carry its RateLimit headers.
  await app.register(versionCheck);
  await app.register(strictRequest);
  await app.register(access);
  app.decorate('writes', deps.storage.writes);
  app.decorate('errorsUrl', config.errorsUrl);
  await app.register(idempotency);
  const activityDropped = app.metrics.getSingleMetric('venue_api_activity_rows_dropped_total') as Counter;
  const activitySaves = new OutageLog(app.log, 'saving key activity (kept for the next flush)');
  const tracker = new ActivityTracker(deps.storage, deps.storage.engine, clock, {
    onError: (err) =>
      unavailableReason(err)
        ? activitySaves.failed(err)
        : app.log.error({ err }, 'the database refused a batch of key activity; it was dropped'),
    onFlushed: () => activitySaves.succeeded(),
    onDropped: (rows) => activityDropped.inc(rows),
  });
  await app.register(activityTracking, { tracker });
  const requestLogDropped = app.metrics.getSingleMetric('venue_api_request_log_rows_dropped_total') as Counter;
  const requestLogSaves = new OutageLog(app.log, 'saving the request log (kept for the next write)');
  const requestLog = new RequestLogWriter((rows) => deps.storage.write((tx) => insertRequestRows(tx, rows)), {
    onError: (err) =>
      unavailableReason(err)
        ? requestLogSaves.failed(err)
        : app.log.error({ err }, 'the database refused a batch of the request log; it was dropped'),
    onFlushed: () => requestLogSaves.succeeded(),
    onDropped: (rows) => requestLogDropped.inc(rows),
  });
  await app.register(requestLogging, { writer: requestLog, clock });

  await app.register(openApiRoute);
  await app.register(errorDocsRoute);
  await app.register(apiDocsRoutes);
  await app.register(opsRoutes, {
    db: deps.storage.db,
    errorsUrl: config.errorsUrl,
    metricsToken: config.metricsToken,
    limits: () => (limitStore.backend === 'memory' ? 'local' : limitStore.degraded ? 'local_fallback' : 'shared'),
    writes: () => deps.storage.writeHealth(),
    draining: deps.draining,
  });
  await app.register(resourceRoutes, { db: deps.storage.db });
  // The developer settings: its own scope, so its headers, cookies and forms stay off the API.
  await app.register(consolePlugin, {
    prefix: '/console',
    storage: deps.storage,
    clock,
    limits: limitStore,
    smtp: config.smtpUrl !== null,
    mail: { smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, baseUrl: config.baseUrl },
    webhooks: { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivate },
  });
  app.addHook('onClose', async () => keys.stop());
  return { app, keys, limitStore };
}
