import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/schema.ts';
import type { Writer } from '../../src/db/write.ts';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';

/** One answer as the fault tests judge it. */
export interface Answer {
  status: number;
  retryAfter: string | null;
  contentType: string;
  body: string;
  /** How long the request took (ms). */
  ms: number;
}

/** Sends one request with the key; `status` 0 is a request that got no answer (a network error or a hang). */
export type Send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;

const VERSION = '2026-10-08';

/** Over HTTP to a server process; a request unanswered after `hangMs` is given up and counted as status 0. */
export function httpSend(baseUrl: string, secret: string, hangMs: number): Send {
  return async (method, path, body, headers = {}) => {
    const started = Date.now();
    try {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${secret}`,
          'service-version': VERSION,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(hangMs),
      });
      const text = await res.text();
      return {
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        contentType: res.headers.get('content-type') ?? '',
        body: text,
        ms: Date.now() - started,
      };
    } catch (err) {
      return { status: 0, retryAfter: null, contentType: '', body: String(err), ms: Date.now() - started };
    }
  };
}

/** In process, through `app.inject`. */
export function injectSend(app: FastifyInstance, secret: string): Send {
  return async (method, path, body, headers = {}) => {
    const started = Date.now();
    const res = await app.inject({
      method: method as 'GET',
      url: path,
      headers: { authorization: `Bearer ${secret}`, 'service-version': VERSION, ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return {
      status: res.statusCode,
      retryAfter: (res.headers['retry-after'] as string | undefined) ?? null,
      contentType: String(res.headers['content-type'] ?? ''),
      body: res.body,
      ms: Date.now() - started,
    };
  };
}

const UNLIMITED = 1_000_000_000;

/** A workspace and a read_write test key whose limits are out of the way of a load; answers its secret. */
export async function loadTenant(db: Writer): Promise<string> {
  const ws = await createWorkspace(db, systemClock, { name: 'Load', requestsPerMinute: UNLIMITED });
  const limits = {
    requests_per_minute: UNLIMITED,
    requests_per_day: UNLIMITED,
    writes_per_minute: UNLIMITED,
    writes_per_day: UNLIMITED,
  };
  const made = await createKey(db, systemClock, {
    workspaceId: ws.id,
    name: 'load',
    mode: 'test',
    access: 'read_write',
    limits,
  });
  return made.secret;
}

/** A 503 problem with Retry-After: what every database fault must answer. */
export function isUnavailable(a: Answer): boolean {
  if (a.status !== 503 || a.retryAfter === null || !a.contentType.startsWith('application/problem+json')) return false;
  return (JSON.parse(a.body) as { code?: string }).code === 'service_unavailable';
}

export interface LoadReport {
  /** 2xx answers (including Idempotency-Key replays). */
  ok: number;
  /** 503 problems with Retry-After. */
  unavailable: number;
  /** Anything else: other statuses, network errors, hangs (status 0). */
  unexpected: Answer[];
  /** The longest any request took (ms). */
  slowestMs: number;
  /** Customer first names the load wrote, each with the id its 201 named. */
  acknowledged: Map<string, string>;
  /** Writes given up when the load stopped, never acknowledged: each may be stored at most once. */
  unacknowledged: string[];
}

/**
 * `clients` concurrent writers POSTing customers named `<prefix>-<client>-<n>`, each retrying
 * a write with the same Idempotency-Key until it is acknowledged (201), as a careful client
 * does after a 503, so the stored rows can be checked against the acknowledged writes.
 */
export function writeLoad(send: Send, options: { clients: number; prefix: string; pauseMs?: number }) {
  const report: LoadReport = {
    ok: 0,
    unavailable: 0,
    unexpected: [],
    slowestMs: 0,
    acknowledged: new Map(),
    unacknowledged: [],
  };
  let stopping = false;
  const pauseMs = options.pauseMs ?? 50;
  const note = (a: Answer) => {
    report.slowestMs = Math.max(report.slowestMs, a.ms);
    if (a.status >= 200 && a.status < 300) report.ok++;
    else if (isUnavailable(a)) report.unavailable++;
    else report.unexpected.push(a);
  };

  const client = async (c: number) => {
    for (let n = 0; !stopping; n++) {
      const name = `${options.prefix}-${c}-${n}`;
      const key = randomUUID();
      for (;;) {
        const a = await send('POST', '/customers', { first_name: name }, { 'idempotency-key': key });
        note(a);
        if (a.status === 201) {
          report.acknowledged.set(name, (JSON.parse(a.body) as { id: string }).id);
          break;
        }
        if (stopping) {
          report.unacknowledged.push(name);
          break;
        }
        await sleep(pauseMs);
      }
    }
  };
  const running = Promise.all(Array.from({ length: options.clients }, (_, c) => client(c)));

  return {
    report,
    /** Resolves once `count` more writes have been acknowledged (or rejects after `timeoutMs`). */
    async acknowledgedMore(count: number, timeoutMs: number): Promise<void> {
      const target = report.acknowledged.size + count;
      const deadline = Date.now() + timeoutMs;
      while (report.acknowledged.size < target) {
        if (Date.now() > deadline) {
          throw new Error(`${count} more writes not acknowledged within ${timeoutMs} ms (${report.acknowledged.size})`);
        }
        await sleep(20);
      }
    },
    async stop(): Promise<LoadReport> {
      stopping = true;
      await running;
      return report;
    },
  };
}

/**
 * The load's writes as stored: every acknowledged one exactly once, with the id its 201
 * named; none stored twice. Answers what does not hold (empty when all is well).
 */
export async function storedOnce(db: Db, report: LoadReport, prefix: string): Promise<string[]> {
  const rows = await db
    .selectFrom('customers')
    .select(['id', 'first_name'])
    .where('first_name', 'like', `${prefix}-%`)
    .execute();
  const byName = new Map<string, string[]>();
  for (const row of rows) byName.set(row.first_name, [...(byName.get(row.first_name) ?? []), row.id]);
  const wrong: string[] = [];
  for (const [name, id] of report.acknowledged) {
    const ids = byName.get(name) ?? [];
    if (ids.length !== 1 || ids[0] !== id) wrong.push(`${name} acknowledged as ${id}, stored as [${ids.join(', ')}]`);
  }
  for (const [name, ids] of byName) if (ids.length > 1) wrong.push(`${name} stored ${ids.length} times`);
  return wrong;
}
