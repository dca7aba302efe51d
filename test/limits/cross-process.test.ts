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

/** `node dist/server.js`, as an operator runs it, on the given database and Redis. */
function startServer(port: number, env: Record<string, string>): Server {
  const child = spawn(process.execPath, ['dist/server.js'], {
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
    const ws = await createWorkspace(storage.db, Date.now, { name: 'Two processes' });
    ({ secret } = await createKey(storage.db, Date.now, {
      workspaceId: ws.id, name: 'twenty a minute', mode: 'live', access: 'read', limits: { requests_per_minute: 20 },
    }));
    const env = { DATABASE_URL: storage.url, REDIS_URL, REDIS_PREFIX: prefix };
    for (let i = 0; i < 2; i++) servers.push(startServer(await freePort(), env));
    await Promise.all(servers.map(listening));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(servers.map(stop));
    await storage?.drop();
    await dropPrefix(prefix);
  }, 30_000);

  it('a key with requests_per_minute=20: of 40 requests split across both, exactly 20 are answered 200', async () => {
    // Fire well inside one real minute window (the servers run on the real clock).
    if (Date.now() % 60_000 > 45_000) await sleep(60_000 - (Date.now() % 60_000) + 200);
    const ask = async (i: number) => {
      const server = servers[i % 2]!;
      const res = await fetch(`http://127.0.0.1:${server.port}/key`, { headers: { authorization: `Bearer ${secret}` } });
      const body = (await res.json()) as { limit?: string };
      return { server: i % 2, status: res.status, limit: body.limit, policy: res.headers.get('ratelimit-policy') };
    };
    // Four rounds of 10 racing requests, 5 to each process.
    const answers = [];
    for (let round = 0; round < 4; round++) {
      answers.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => ask(i)))));
    }
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    console.info(
      `cross-process: ${ok.length} x 200 (server A ${ok.filter((a) => a.server === 0).length}, server B ${ok.filter((a) => a.server === 1).length}), ${limited.length} x 429`,
    );
    expect(ok).toHaveLength(20);
    expect(ok.filter((a) => a.server === 0)).toHaveLength(10); // both processes drew on one budget
    expect(answers.slice(20).every((a) => a.status === 429)).toBe(true);
    expect(limited).toHaveLength(20);
    expect(new Set(limited.map((a) => a.limit))).toEqual(new Set(['requests_per_minute']));
    expect(new Set(answers.map((a) => a.policy))).toEqual(new Set(['"default";q=20;w=60']));
  });
});
