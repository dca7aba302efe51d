import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pingDatabase } from '../db/index.ts';
import type { Db } from '../db/schema.ts';
import { schemaState } from '../db/schema-state.ts';
import { ApiError, toProblem } from '../errors.ts';

/**
 * Operations endpoints for load balancers and Prometheus, not API clients: they need no key
 * and stay out of the OpenAPI document (docs/operations.md "Health, readiness and metrics").
 */
export interface OpsOptions {
  db: Db;
  errorsUrl: string;
  /** How the limits are counted right now: shared through Redis, or by this process alone. */
  limits?: (() => 'shared' | 'local' | 'local_fallback') | undefined;
  /** Whether writes are failing right now (a full disk, an outage), from the write path. */
  writes?: (() => { failing: boolean; reason: string | null; since: number | null }) | undefined;
  /** True while the process serves out its shutdown delay, so a balancer takes it out first. */
  draining?: (() => boolean) | undefined;
  /** How long the database may take to answer before it counts as down (ms). */
  readyTimeoutMs?: number;
  /** METRICS_TOKEN: when set, /metrics answers only `Authorization: Bearer <token>`. */
  metricsToken?: string | null;
}

type CheckState = 'ok' | 'down';

/** `fn` within `timeoutMs`, else 'down'; a failure is 'down' too. */
async function probe(fn: () => Promise<boolean>, timeoutMs: number): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return (await Promise.race([fn().catch(() => false), late])) ? 'ok' : 'down';
  } finally {
    clearTimeout(timer);
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Compares digests, which always have the same length, so the time taken tells nothing
 * of the token's length or of how much of it a guess got right.
 */
function bearerMatches(request: FastifyRequest, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

const ops = { config: { access: { kind: 'public' as const } }, schema: { hide: true } };

export async function opsRoutes(app: FastifyInstance, options: OpsOptions) {
  const timeoutMs = options.readyTimeoutMs ?? 2_000;

  // Alive: the process answers, 200 whatever its dependencies do. Its details say what is
  // degraded (writes failing, limits counted per process) for a person or a dashboard.
  app.get('/health', ops, async () => {
    const writes = options.writes?.();
    const limits = options.limits?.() ?? 'local';
    const degraded = (writes?.failing ?? false) || limits === 'local_fallback';
    return {
      status: degraded ? 'degraded' : 'ok',
      // Which process answered: with several workers on one port, each has its own.
      pid: process.pid,
      checks: {
        writes: writes?.failing ? 'failing' : 'ok',
        ...(writes?.failing ? { writes_failing_since: new Date(writes.since ?? Date.now()).toISOString() } : {}),
        limits,
      },
    };
  });

  // Ready: this process can serve. The database answers within its bound and its schema is
  // one this version runs on. Redis is not asked: without it the limits are counted in this
  // process and the API goes on, so a Redis blip must not take every process out of a load
  // balancer. Nor are failing writes: reads still work, and every process shares the disk.
  app.get('/ready', ops, async (request, reply) => {
    let missing: string[] = [];
    const database = await probe(async () => {
      if (!(await pingDatabase(options.db))) return false;
      missing = (await schemaState(options.db)).missing;
      return true;
    }, timeoutMs);
    const schema: CheckState = database === 'ok' && missing.length === 0 ? 'ok' : 'down';
    const draining = options.draining?.() ?? false;
    const checks = { database, schema, ...(draining ? { shutdown: 'draining' } : {}) };
    if (database === 'ok' && schema === 'ok' && !draining) return { status: 'ready', checks };
    const detail = draining
      ? 'Not ready: this process is shutting down; it serves what it is sent until it closes.'
      : database === 'down'
        ? 'Not ready: the database does not answer.'
        : `Not ready: the database lacks migrations this version needs (${missing.join(', ')}); run venue-api migrate.`;
    const problem = toProblem(new ApiError('service_unavailable', detail), options.errorsUrl, request.id);
    return reply
      .code(503)
      .header('Retry-After', '5')
      .type('application/problem+json')
      .send({ ...problem, title: 'The service is not ready', checks });
  });

  // /metrics shows process internals and how many keys are paused: behind METRICS_TOKEN
  // when one is set, else public for operators who expose it only internally.
  const metricsToken = options.metricsToken ?? null;
  app.get('/metrics', ops, async (request, reply) => {
    if (metricsToken !== null && !bearerMatches(request, metricsToken)) {
      throw new ApiError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    const text = await app.metricsText().catch((err: Error) => {
      throw new ApiError('service_unavailable', `${err.message}; try again.`, { headers: { 'Retry-After': '1' } });
    });
    return reply.type(app.metrics.contentType).send(text);
  });
}
