import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';
import { dropPrefix, REDIS_URL, uniquePrefix } from './fixtures.ts';
import { freePort } from './private-redis.ts';

interface Server {
  port: number;
  child: ChildProcess;
  output: string[];
}

/** `node dist/bundle/server.js`, as an operator runs it, on the given database and Redis. */
function startServer(port: number, env: Record<string, string>): Server {
  const child = spawn(process.execPath, ['dist/bundle/server.js'], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  return { port, child, output };
}

/** Waits (bounded: 30 s) until the server answers anything; an unknown path is not counted. */
async function listening(server: Server): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (server.child.exitCode !== null) break;
    try {
      await fetch(`http://127.0.0.1:${server.port}/__not_a_route`);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`server on ${server.port} did not start:\n${server.output.join('')}`);
}

/** How often the server fell back from Redis to counting limits on its own (/metrics). */
async function fallbacks(server: Server): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
  const count = /^venue_api_limit_store_fallbacks_total (\d+)$/m.exec(text)?.[1];
  if (count === undefined) throw new Error(`no fallback count in /metrics:\n${text.slice(0, 500)}`);
  return Number(count);
}

async function stop(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  if ((await Promise.race([exited, sleep(10_000, 'timeout')])) === 'timeout') server.child.kill('SIGKILL');
}

describe('two server processes on one PostgreSQL and one Redis', () => {
  let storage: TestStorage;
  const servers: Server[] = [];
  const prefix = uniquePrefix();
  let secret: string;

  beforeAll(async () => {
    storage = await freshStorage('postgres');
    // Made before the servers start, so they find a populated database.
    const ws = await createWorkspace(storage, Date.now, { name: 'Two processes' });
    ({ secret } = await createKey(storage, Date.now, {
      workspaceId: ws.id,
      name: 'twenty a minute',
      mode: 'live',
      access: 'read',
      limits: { requests_per_minute: 20 },
    }));
    const warmUp = await createKey(storage, Date.now, {
      workspaceId: ws.id,
      name: 'warm-up',
      mode: 'live',
      access: 'read',
    });
    // A loaded machine may answer a check late: a timeout would be a fallback the test counts.
    const env = { DATABASE_URL: storage.url, REDIS_URL, REDIS_PREFIX: prefix, REDIS_COMMAND_TIMEOUT_MS: '5000' };
    for (let i = 0; i < 2; i++) servers.push(startServer(await freePort(), env));
    await Promise.all(servers.map(listening));
    // One counted request each with another key, so the first measured ones do not also pay
    // for the servers' first Redis round trip.
    for (const s of servers) {
      const res = await fetch(`http://127.0.0.1:${s.port}/key`, {
        headers: { authorization: `Bearer ${warmUp.secret}` },
      });
      expect(res.status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map(stop));
    await storage?.drop();
    await dropPrefix(prefix);
  }, 30_000);

  it('a key with requests_per_minute=20 draws on one budget across both processes: each minute admits exactly 20', async () => {
    // The servers count on the real clock, so the 40 requests may straddle a minute
    // boundary. Rather than wait for a fresh minute, each answer is placed in the window the
    // server itself reports (its Date plus RateLimit t=, the seconds to that window's end),
    // and the budget is checked window by window.
    const ask = async (round: number, i: number) => {
      const server = servers[i % 2]!;
      const res = await fetch(`http://127.0.0.1:${server.port}/key`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      const body = (await res.json()) as { limit?: string };
      const rate = /^"default";r=(\d+);t=(\d+)$/.exec(res.headers.get('ratelimit') ?? '');
      const date = Date.parse(res.headers.get('date') ?? '');
      if (!rate || Number.isNaN(date)) throw new Error(`no RateLimit or Date header: ${[...res.headers].join(' ')}`);
      const windowEnd = Math.round((date / 1000 + Number(rate[2])) / 60) * 60;
      return {
        round,
        server: i % 2,
        status: res.status,
        limit: body.limit,
        policy: res.headers.get('ratelimit-policy'),
        left: Number(rate[1]),
        windowEnd,
      };
    };
    // Four rounds of 10 racing requests, 5 to each process.
    const answers: Awaited<ReturnType<typeof ask>>[] = [];
    for (let round = 0; round < 4; round++) {
      answers.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => ask(round, i)))));
    }
    // The premise: both processes counted in Redis throughout. A process that lost it (a
    // Redis command over its timeout on a loaded machine) counts alone, by design.
    for (const s of servers)
      expect(await fallbacks(s), `server on ${s.port} fell back to its own counts:\n${s.output.join('')}`).toBe(0);
    expect(new Set(answers.map((a) => a.policy))).toEqual(new Set(['"default";q=20;w=60']));
    const windows = new Map<number, typeof answers>();
    for (const a of answers) windows.set(a.windowEnd, [...(windows.get(a.windowEnd) ?? []), a]);
    const count = (list: typeof answers, status: number, server?: number) =>
      list.filter((a) => a.status === status && (server === undefined || a.server === server)).length;
    console.info(
      'cross-process, by minute window:',
      [...windows.values()]
        .map(
          (w) => `${count(w, 200)} x 200 (server A ${count(w, 200, 0)}, B ${count(w, 200, 1)}), ${count(w, 429)} x 429`,
        )
        .join('; '),
    );
    for (const [end, inWindow] of windows) {
      const ok = inWindow.filter((a) => a.status === 200);
      const limited = inWindow.filter((a) => a.status === 429);
      expect(ok.length + limited.length, `window ending ${end}`).toBe(inWindow.length);
      // One budget: exactly 20 admitted (all, when fewer came), counted down by one counter,
      // so no two answers, from either process, report the same requests left.
      expect(ok, `window ending ${end}`).toHaveLength(Math.min(20, inWindow.length));
      expect(ok.map((a) => a.left).sort((a, b) => b - a)).toEqual(Array.from({ length: ok.length }, (_, i) => 19 - i));
      // Earlier rounds were served first: no request is admitted after one was refused.
      if (limited.length > 0) {
        expect(Math.max(-1, ...ok.map((a) => a.round))).toBeLessThanOrEqual(Math.min(...limited.map((a) => a.round)));
      }
      expect(new Set(limited.map((a) => a.limit))).toEqual(new Set(limited.length ? ['requests_per_minute'] : []));
      expect(limited.every((a) => a.left === 0)).toBe(true);
    }
    // At least one window saw 20 or more requests: both processes drew on its one budget.
    const busiest = [...windows.values()].sort((a, b) => b.length - a.length)[0]!;
    const admitted = busiest.filter((a) => a.status === 200);
    expect(admitted).toHaveLength(20);
    expect(new Set(admitted.map((a) => a.server))).toEqual(new Set([0, 1]));
  });
});
