import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { migrate, openStorage } from '../src/db/index.ts';
import { createKey } from '../src/resources/keys/key.service.ts';
import { createWorkspace } from '../src/resources/workspaces/workspace.service.ts';
import { seedWorkspace } from '../src/seed/seed.service.ts';
import { startChild, type Child } from './processes.ts';

/**
 * `npm run bench`: the API's throughput, latency and memory, each as a ratio of a
 * baseline measured in the same run (bench/floor.ts: the bare framework sending a body of
 * the same size). Settings: BENCH_CUSTOMERS (20000), BENCH_SECONDS per scenario (5),
 * BENCH_CONNECTIONS (16), BENCH_DATABASE_URL (a fresh SQLite file when unset).
 */
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 20_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const UNLIMITED = 1_000_000_000;

interface Scenario {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
}

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  rssMiB: number;
}

async function measure(scenario: Scenario, child: Child): Promise<Result> {
  const result = await autocannon({
    url: scenario.url,
    method: scenario.method ?? 'GET',
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: scenario.headers,
    body: scenario.body,
    // `[<id>]` becomes a fresh id per request: every POST is a new Idempotency-Key and email.
    idReplacement: true,
  });
  const bad = result.non2xx + result.errors;
  return {
    name: scenario.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: bad,
    rssMiB: child.rssMiB(),
  };
}

async function prepare(dir: string) {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? join(dir, 'bench.sqlite');
  const storage = await openStorage(databaseUrl);
  await migrate(storage);
  const ws = await createWorkspace(storage.db, Date.now, { name: 'Bench', requestsPerMinute: UNLIMITED });
  const started = Date.now();
  const counts = await seedWorkspace(storage, { workspaceId: ws.id, customers: CUSTOMERS });
  const seedSeconds = (Date.now() - started) / 1000;
  const limits = {
    requests_per_minute: UNLIMITED,
    requests_per_day: UNLIMITED,
    writes_per_minute: UNLIMITED,
    writes_per_day: UNLIMITED,
    removals_per_day: UNLIMITED,
  };
  const { secret } = await createKey(storage.db, Date.now, {
    workspaceId: ws.id,
    name: 'bench',
    mode: 'live',
    access: 'read_write',
    limits,
  });
  await storage.close();
  return { databaseUrl, secret, counts, seedSeconds };
}

async function get(url: string, headers: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'venue-bench-'));
  const children: Child[] = [];
  try {
    const { databaseUrl, secret, counts, seedSeconds } = await prepare(dir);
    const api = await startChild(
      ['src/server.ts'],
      { DATABASE_URL: databaseUrl, DEMO: 'off', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', BASE_URL: '' },
      /Venue API listening at (http:\/\/\S+)/,
    );
    children.push(api);
    const headers = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
    const page = await fetch(`${api.url}/customers?limit=25`, { headers }).then((r) => r.text());
    const first = JSON.parse(page).data[0];
    let cursor: string | undefined;
    for (let i = 0, pages = Math.min(50, Math.floor(CUSTOMERS / 200)); i < pages; i++) {
      const next = (await get(
        `${api.url}/customers?limit=100${cursor ? `&starting_after=${cursor}` : ''}`,
        headers,
      )) as { next_cursor?: string };
      cursor = next.next_cursor;
    }
    const bodyFile = join(dir, 'page.json');
    writeFileSync(bodyFile, page);
    const floor = await startChild(['bench/floor.ts'], { BODY_FILE: bodyFile }, /listening at (http:\/\/\S+)/);
    children.push(floor);

    const json = { ...headers, 'content-type': 'application/json', 'idempotency-key': 'bench-[<id>]' };
    const scenarios: Scenario[] = [
      { name: 'GET /customers?limit=25', url: `${api.url}/customers?limit=25`, headers },
      { name: 'GET /customers (deep page)', url: `${api.url}/customers?limit=25&starting_after=${cursor}`, headers },
      { name: 'GET /customers/{id}', url: `${api.url}/customers/${first.id}`, headers },
      {
        name: 'GET /customers?email=',
        url: `${api.url}/customers?email=${encodeURIComponent(first.email ?? 'x@example.com')}`,
        headers,
      },
      { name: 'GET /bookings?limit=25', url: `${api.url}/bookings?limit=25`, headers },
      { name: 'GET /orders?customer=', url: `${api.url}/orders?customer=${first.id}`, headers },
      {
        name: 'POST /customers',
        url: `${api.url}/customers`,
        method: 'POST',
        headers: json,
        body: JSON.stringify({ first_name: 'Bench', email: 'bench-[<id>]@example.com' }),
      },
    ];

    const base = await measure({ name: 'baseline: bare Fastify, same body', url: `${floor.url}/floor` }, floor);
    const results = [base];
    for (const scenario of scenarios) results.push(await measure(scenario, api));

    console.log(
      `\nvenue-api bench: ${counts.customers} customers, ${counts.bookings} bookings, ${counts.orders} orders ` +
        `(seeded in ${seedSeconds.toFixed(1)} s); ${CONNECTIONS} connections, ${SECONDS} s per scenario\n`,
    );
    const pad = (s: string, n: number) => s.padEnd(n);
    console.log(
      `${pad('scenario', 36)}${pad('req/s', 10)}${pad('vs base', 9)}${pad('p50 ms', 8)}${pad('p99 ms', 8)}${pad('p99 vs base', 12)}errors`,
    );
    for (const r of results) {
      console.log(
        `${pad(r.name, 36)}${pad(r.rps.toFixed(0), 10)}${pad((r.rps / base.rps).toFixed(2), 9)}` +
          `${pad(String(r.p50), 8)}${pad(String(r.p99), 8)}${pad((r.p99 / Math.max(base.p99, 1)).toFixed(1), 12)}${r.errors}`,
      );
    }
    const peak = Math.max(...results.slice(1).map((r) => r.rssMiB));
    console.log(
      `\nmemory: API ${peak.toFixed(0)} MiB RSS at its peak, baseline ${base.rssMiB.toFixed(0)} MiB: ${(peak / base.rssMiB).toFixed(2)}x`,
    );
    if (results.some((r) => r.errors > 0)) process.exitCode = 1;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
