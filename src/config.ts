import { dirname, join } from 'node:path';
import { isPostgresUrl, sqlitePath } from './db/database-url.ts';
import type { PostgresOptions } from './db/dialects/postgres.ts';

/**
 * The one configuration of the process: every setting named, typed, described and
 * validated at start (CONVENTIONS 9). Nothing else reads process.env.
 */
export interface Config {
  /** Where the data lives: a SQLite file path (default) or a postgres:// URL. */
  readonly databaseUrl: string;
  /** Redis for the shared limit store; null keeps limits in this process. */
  readonly redisUrl: string | null;
  /** Prefix of every Redis key the limit store writes, so deployments can share one Redis. */
  readonly redisPrefix: string;
  /** How long one limit check waits for Redis before this process answers from its own counts. */
  readonly redisCommandTimeoutMs: number;
  readonly port: number;
  readonly host: string;
  /** Proxies whose X-Forwarded-For is believed (Fastify's trustProxy forms); false = none. */
  readonly trustProxy: boolean | string | number;
  readonly tlsCert: string | null;
  readonly tlsKey: string | null;
  /** Base address printed and used in links, e.g. http://127.0.0.1:8080. */
  readonly baseUrl: string;
  /** Address of the error-type documents: problem `type` is `${errorsUrl}#<code>`. */
  readonly errorsUrl: string;
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  readonly logLevel: string;
  /** Make a demo workspace on a database with none (the first `npm start`); DEMO=off for production. */
  readonly demo: boolean;
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>`. */
  readonly metricsToken: string | null;
  /** How often each process re-reads changed keys, so a pause or revoke spreads (ms). */
  readonly keyRefreshMs: number;
  /** A request (headers and body) not fully received within this is answered 408 (ms). */
  readonly requestTimeoutMs: number;
  /** Connections open at once; further ones are closed as they arrive. */
  readonly maxConnections: number;
  /**
   * A connection on which nothing is read and nothing written for this long is closed (ms):
   * a client that stopped reading its answers, or went silent in the middle of one. Between
   * requests, the keep-alive timeout applies instead.
   */
  readonly connectionIdleTimeoutMs: number;
  /**
   * How long the server's SQLite connection waits for another process's write lock (ms).
   * better-sqlite3 waits synchronously, blocking every request meanwhile, so it stays short;
   * a write that still finds the lock held is a 503 with Retry-After.
   */
  readonly sqliteBusyTimeoutMs: number;
  /**
   * SQLite's page cache for the server's connection (MiB); unset, the driver's own
   * (dialects/sqlite.ts says why).
   */
  readonly sqliteCacheMiB: number | undefined;
  /** PostgreSQL only: connections in the process's pool. */
  readonly pgPoolSize: number;
  /**
   * PostgreSQL: how long connecting, or waiting for a free connection of the pool, may take
   * (ms) before the request is answered 503 with Retry-After.
   */
  readonly pgConnectTimeoutMs: number;
  /**
   * PostgreSQL: the server cancels a statement of the server's that runs longer (ms), and the
   * client stops waiting for an answer a second later (a database silent on the network).
   */
  readonly pgStatementTimeoutMs: number;
  /** PostgreSQL: how long a statement may wait for a lock another transaction holds (ms). */
  readonly pgLockTimeoutMs: number;
  /** PostgreSQL: TCP keep-alive, probing a connection idle this long (ms) so a vanished peer is noticed. */
  readonly pgKeepAliveMs: number;
  /**
   * Server processes on one port (`serve --workers N`): one supervises, N serve. PostgreSQL
   * only when above 1: SQLite has one writer, and processes would queue on its lock.
   */
  readonly workers: number;
  /**
   * `auto`: a server brings the schema up to date at start (the embedded default). `off`: it
   * migrates nothing, and is not ready until `venue-api migrate` has run (a deploy's own step).
   */
  readonly migrate: 'auto' | 'off';
  /**
   * After SIGTERM, how long the process goes on serving (with /ready answering 503) before it
   * stops taking connections (ms): the time a load balancer needs to notice and send no more.
   */
  readonly shutdownDelayMs: number;
  /** Webhook URLs may be plain `http` (development and tests); otherwise `https` only. */
  readonly webhookAllowHttp: boolean;
  /**
   * Webhook deliveries may go to loopback, private, link-local, unique-local and cloud-metadata
   * addresses (development and tests); otherwise they are refused at creation and at connect time.
   */
  readonly webhookAllowPrivate: boolean;
  /** Seconds to wait before each retry of a failed delivery; after the last, it is failed. */
  readonly webhookRetrySchedule: readonly number[];
  /** Days the events feed keeps an event (1 to 365); an event with a delivery pending stays. */
  readonly eventRetentionDays: number;
  /** REQUEST_LOG_DAYS: how long the request log keeps a request (DECISIONS "Request log"). */
  readonly requestLogDays: number;
  /**
   * Scheduled SQLite backups (docs/operations.md "Backup and restore"): of the database file
   * `source`, every BACKUP_INTERVAL_MINUTES (null: none) into BACKUP_DIR, keeping BACKUP_KEEP.
   */
  readonly backups: { source: string; intervalMinutes: number; dir: string; keep: number } | null;
  /**
   * OpenTelemetry traces (docs/operations.md "Tracing"): on when OTEL_EXPORTER_OTLP_ENDPOINT or
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names a receiver. The SDK reads its other OTEL_* settings itself.
   */
  readonly tracing: boolean;
}

type Env = Record<string, string | undefined>;

/** The server's default SQLite busy wait: a few tens of milliseconds of a blocked event loop at most. */
const SERVER_BUSY_TIMEOUT_MS = 50;

export class ConfigError extends Error {}

/** A whole number from min to max; `fallback` when unset (undefined for a setting with no default). */
function int<F extends number | undefined>(env: Env, name: string, fallback: F, min: number, max: number): number | F {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'off', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be on or off, got "${raw}"`);
}

function trustProxy(raw: string | undefined): boolean | string | number {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  // DECISIONS: TRUST_PROXY *names* the proxies. `true` would believe any client's
  // X-Forwarded-For, letting it dodge (or aim) the per-address refused-key limit.
  if (raw === 'true') {
    throw new ConfigError(
      'TRUST_PROXY must name the proxies (addresses or CIDR ranges, comma-separated) or a hop count, not "true"',
    );
  }
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw; // a comma-separated list of addresses or CIDR ranges
}

/** SMTP_URL must be a URL the mailer can use, or a bad value would surface at the first pause. */
function smtpUrl(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (url === null || !['smtp:', 'smtps:'].includes(url.protocol) || url.hostname === '') {
    throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// address with a host, got "${raw}"`);
  }
  return raw;
}

function retrySchedule(raw: string | undefined): readonly number[] {
  if (raw === undefined || raw === '') return Object.freeze([5, 300, 1800, 7200, 18000, 36000, 36000]);
  const steps = raw.split(',').map((s) => Number(s.trim()));
  if (steps.length > 50 || steps.some((n) => !Number.isInteger(n) || n < 0 || n > 604_800)) {
    throw new ConfigError(
      `WEBHOOK_RETRY_SCHEDULE must be comma-separated whole seconds (0 to 604800, at most 50), got "${raw}"`,
    );
  }
  return Object.freeze(steps);
}

function migrateMode(raw: string | undefined): 'auto' | 'off' {
  if (raw === undefined || raw === '' || raw === 'auto') return 'auto';
  if (raw === 'off') return 'off';
  throw new ConfigError(`MIGRATE must be auto or off, got "${raw}"`);
}

function backups(env: Env, databaseUrl: string): Config['backups'] {
  const intervalMinutes = int(env, 'BACKUP_INTERVAL_MINUTES', 0, 0, 10_080);
  if (intervalMinutes === 0) return null;
  if (isPostgresUrl(databaseUrl)) {
    throw new ConfigError(
      'BACKUP_INTERVAL_MINUTES backs up a SQLite database; on PostgreSQL use pg_dump or base backups (docs/operations.md "Backup and restore")',
    );
  }
  const path = sqlitePath(databaseUrl);
  if (path === ':memory:') throw new ConfigError('BACKUP_INTERVAL_MINUTES needs a database file, not :memory:');
  return {
    source: path,
    intervalMinutes,
    dir: env.BACKUP_DIR || join(dirname(path), 'backups'),
    keep: int(env, 'BACKUP_KEEP', 24, 1, 10_000),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const tlsCert = env.TLS_CERT || null;
  const tlsKey = env.TLS_KEY || null;
  if ((tlsCert === null) !== (tlsKey === null)) {
    throw new ConfigError('TLS_CERT and TLS_KEY must be set together');
  }
  const databaseUrl = env.DATABASE_URL || './data/venue.sqlite';
  if (/^[a-z]+:\/\//i.test(databaseUrl) && !isPostgresUrl(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must be a SQLite path, sqlite:PATH or postgres://…, got "${databaseUrl}"`);
  }
  const redisUrl = env.REDIS_URL || null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError(`REDIS_URL must start with redis:// or rediss://`);
  }
  const scheme = tlsCert ? 'https' : 'http';
  const baseUrl = (env.BASE_URL || `${scheme}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`).replace(/\/$/, '');
  if (!/^https?:\/\/[^/\s]+/.test(baseUrl)) {
    throw new ConfigError(`BASE_URL must be an absolute http(s) address, got "${env.BASE_URL}"`);
  }
  return Object.freeze({
    databaseUrl,
    backups: backups(env, databaseUrl),
    tracing:
      Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
      env.OTEL_SDK_DISABLED !== 'true' &&
      env.OTEL_TRACES_EXPORTER !== 'none',
    redisUrl,
    redisPrefix: env.REDIS_PREFIX || 'venue-api:',
    redisCommandTimeoutMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 500, 10, 60_000),
    port,
    host,
    trustProxy: trustProxy(env.TRUST_PROXY),
    tlsCert,
    tlsKey,
    baseUrl,
    errorsUrl: env.ERRORS_URL || `${baseUrl}/docs/errors`,
    smtpUrl: smtpUrl(env.SMTP_URL),
    metricsToken: env.METRICS_TOKEN || null,
    demo: flag(env, 'DEMO', true),
    mailFrom: env.MAIL_FROM || 'venue-api <no-reply@localhost>',
    logLevel: env.LOG_LEVEL || 'info',
    keyRefreshMs: int(env, 'KEY_REFRESH_MS', 2000, 100, 5000),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    maxConnections: int(env, 'MAX_CONNECTIONS', 1024, 1, 1_000_000),
    connectionIdleTimeoutMs: int(env, 'CONNECTION_IDLE_TIMEOUT_MS', 60_000, 1000, 3_600_000),
    sqliteBusyTimeoutMs: int(env, 'SQLITE_BUSY_TIMEOUT_MS', SERVER_BUSY_TIMEOUT_MS, 0, 1000),
    sqliteCacheMiB: int(env, 'SQLITE_CACHE_MIB', undefined, 1, 65_536),
    // The API's statements are index lookups and bounded pages, done in milliseconds; a request
    // that waits seconds on the database is better answered 503 and retried (DECISIONS "HTTP and errors").
    pgPoolSize: int(env, 'PG_POOL_SIZE', 10, 1, 1000),
    pgConnectTimeoutMs: int(env, 'PG_CONNECT_TIMEOUT_MS', 2_000, 100, 600_000),
    pgStatementTimeoutMs: int(env, 'PG_STATEMENT_TIMEOUT_MS', 5_000, 100, 3_600_000),
    pgLockTimeoutMs: int(env, 'PG_LOCK_TIMEOUT_MS', 2_000, 100, 3_600_000),
    pgKeepAliveMs: int(env, 'PG_KEEPALIVE_MS', 10_000, 1_000, 7_200_000),
    workers: int(env, 'WORKERS', 1, 1, 64),
    migrate: migrateMode(env.MIGRATE),
    shutdownDelayMs: int(env, 'SHUTDOWN_DELAY_MS', 0, 0, 600_000),
    webhookAllowHttp: flag(env, 'WEBHOOK_ALLOW_HTTP', false),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    webhookRetrySchedule: retrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    eventRetentionDays: int(env, 'EVENT_RETENTION_DAYS', 365, 1, 365),
    requestLogDays: int(env, 'REQUEST_LOG_DAYS', 14, 1, 90),
  });
}

/**
 * The PostgreSQL pool's bounds from the config. `bulk` work (migrations, and the CLI's seed,
 * import and undo) may rightly run long and serves no one while it waits: it keeps the
 * connect timeout and keep-alive but has no statement or lock timeout.
 */
export function postgresBounds(config: Config, work: 'requests' | 'bulk'): PostgresOptions {
  const always = {
    poolSize: config.pgPoolSize,
    connectTimeoutMs: config.pgConnectTimeoutMs,
    keepAliveMs: config.pgKeepAliveMs,
  };
  if (work === 'bulk') return always;
  return { ...always, statementTimeoutMs: config.pgStatementTimeoutMs, lockTimeoutMs: config.pgLockTimeoutMs };
}
