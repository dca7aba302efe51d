import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pingDatabase } from '../db/index.ts';
import type { Db } from '../db/schema.ts';
import { ApiError, toProblem } from '../errors.ts';

/**
 * Operations endpoints (issue 4 "Operations"): for load balancers and Prometheus, not API
 * clients, so they need no key and stay out of the OpenAPI document.
 */
export interface OpsOptions {
  db: Db;
  errorsUrl: string;
  /** Present when a shared limit store (Redis) is configured: answers whether it is reachable. */
  pingLimitStore?: (() => Promise<boolean>) | undefined;
  /** How long a dependency may take to answer before it counts as down (ms). */
  readyTimeoutMs?: number;
  /** METRICS_TOKEN: when set, /metrics answers only `Authorization: Bearer <token>`. */
  metricsToken?: string | null;
}

type CheckState = 'ok' | 'down';

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

  // Alive: the process answers. Says nothing of its dependencies (that is /ready).
  app.get('/health', ops, async () => ({ status: 'ok' }));

  app.get('/ready', ops, async (request, reply) => {
    const checks: Record<string, CheckState> = {};
    const probes: Promise<void>[] = [
      probe(() => pingDatabase(options.db), timeoutMs).then((s) => {
        checks.database = s;
      }),
    ];
    const ping = options.pingLimitStore;
    if (ping) {
      probes.push(
        probe(ping, timeoutMs).then((s) => {
          checks.redis = s;
        }),
      );
    }
    await Promise.all(probes);
    const down = Object.keys(checks).filter((name) => checks[name] === 'down');
    if (down.length === 0) return { status: 'ready', checks };
    // SPEC's codes are a closed set, so the problem keeps internal_error; the status a load
    // balancer reads is 503, and `checks` says what is down (an RFC 9457 extension member).
    const problem = toProblem(
      new ApiError('internal_error', `Not ready: ${down.join(' and ')} unreachable.`),
      options.errorsUrl,
      request.id,
    );
    return reply
      .code(503)
      .type('application/problem+json')
      .send({ ...problem, title: 'The service is not ready', status: 503, checks });
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
    const text = await app.metrics.metrics();
    return reply.type(app.metrics.contentType).send(text);
  });
}
