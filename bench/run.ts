import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { isPostgresUrl, migrate, openStorage } from '../src/db/index.ts';
import { sqlitePath } from '../src/db/dialects/sqlite.ts';
import { createKey } from '../src/resources/keys/key.service.ts';
import { createWorkspace } from '../src/resources/workspaces/workspace.service.ts';
import { seedWorkspace, type SeedCounts } from '../src/seed/seed.service.ts';
import { ROOT, startChild, startUntilReady, type Child } from './processes.ts';

/**
 * `npm run bench`: the API's throughput, latency, memory and cold start, each beside a
 * ceiling measured in the same run on the same data (bench/ceilings/, each its own process):
 *
 * - get_one: GET /customers/{id} of random customers; ceiling raw_node_http (node:http
 *   answering the same bytes, constant);
 * - page_100: GET /customers?limit=100; ceiling bare_fastify_sqlite (one prepared statement
 *   paging the same rows by (created_at, id) desc, JSON.stringify);
 * - sync: one client walks every customer, 100 a page, following next_cursor; rps is records
 *   a second; ceiling the same walk over bare_fastify_sqlite;
 * - create: POST /customers, a fresh Idempotency-Key and email each; ceiling
 *   bare_fastify_insert (one row per request in its own transaction, WAL, synchronous=FULL);
 * - update: PATCH /customers/{id} with If-Match; ceiling bare_fastify_insert. Each customer of
 *   a pool is read first (its ETag) and is in flight on one connection at a time; the ETag of
 *   each 200 becomes the next If-Match for it, so no 412 is expected and every one counts.
 *
 * The API is `npm start`'s process (`node dist/bundle/server.js`, built first); the load is
 * autocannon in this process, CONNECTIONS connections, after a warm-up. `--quick`: 100,000
 * customers (default 1,000,000); `--json`: only the JSON document on stdout (progress goes
 * to stderr). Settings: BENCH_CUSTOMERS, BENCH_SECONDS per measurement (10), BENCH_WARMUP
 * seconds (3), BENCH_CONNECTIONS (32), BENCH_UPDATE_POOL (2048), BENCH_DATABASE_URL (a fresh
 * SQLite file when unset; on PostgreSQL the ceilings still read a SQLite file seeded alike).
 * Exits non-zero when any answer was not 2xx.
 */
const QUICK = process.argv.includes('--quick');
const JSON_OUT = process.argv.includes('--json');
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? (QUICK ? 100_000 : 1_000_000));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const UPDATE_POOL = Number(process.env.BENCH_UPDATE_POOL ?? 2048);
const COLD_STARTS = 3;
const UNLIMITED = 1_000_000_000;
const PAGE = 100;

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

interface ScenarioResult extends Load {
  name: string;
  ceiling: string;
  ceiling_rps: number;
}

/** A warm-up of WARMUP seconds, then SECONDS measured; `errors` is every answer not 2xx. */
async function load(options: autocannon.Options): Promise<Load> {
  const base = { connections: CONNECTIONS, ...options };
  if (WARMUP > 0) await autocannon({ ...base, duration: WARMUP });
  const r = await autocannon({ ...base, duration: SECONDS });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.non2xx + r.errors };
}

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** One client following next_cursor to the end: records a second, page latencies, non-2xx pages. */
async function walk(
  url: (cursor: string | undefined) => string,
  headers: Record<string, string>,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<Load & { records: number }> {
  const started = performance.now();
  const times: number[] = [];
  let records = 0;
  let errors = 0;
  let cursor: string | undefined;
  for (let pages = 0; pages < maxPages; pages++) {
    const t = performance.now();
    const res = await fetch(url(cursor), { headers });
    const text = await res.text();
    times.push(performance.now() - t);
    if (!res.ok) {
      errors++;
      break;
    }
    const page = JSON.parse(text) as { data: unknown[]; has_more: boolean; next_cursor?: string };
    records += page.data.length;
    if (!page.has_more || !page.next_cursor) break;
    cursor = page.next_cursor;
  }
  const seconds = (performance.now() - started) / 1000;
  return { records, rps: records / seconds, p50: quantile(times, 0.5), p99: quantile(times, 0.99), errors };
}

interface Prepared {
  workspaceId: string;
  counts: SeedCounts;
  seedSeconds: number;
}

/** A fresh workspace with no limits to speak of, seeded with CUSTOMERS customers. */
async function seed(databaseUrl: string): Promise<Prepared & { secret: string; ids: string[] }> {
  const storage = await openStorage(databaseUrl);
  try {
    await migrate(storage);
    const ws = await createWorkspace(storage, Date.now, { name: 'Bench', requestsPerMinute: UNLIMITED });
    const started = Date.now();
    let shown = 0;
    const counts = await seedWorkspace(storage, {
      workspaceId: ws.id,
      customers: CUSTOMERS,
      onProgress: (done, total) => {
        if (done - shown >= total / 10 || done === total) {
          shown = done;
          log(`  seeded ${done} of ${total} customers (${((Date.now() - started) / 1000).toFixed(0)} s)`);
        }
      },
    });
    const seedSeconds = (Date.now() - started) / 1000;
    const { secret } = await createKey(storage, Date.now, {
      workspaceId: ws.id,
      name: 'bench',
      mode: 'live',
      access: 'read_write',
      limits: {
        requests_per_minute: UNLIMITED,
        requests_per_day: UNLIMITED,
        writes_per_minute: UNLIMITED,
        writes_per_day: UNLIMITED,
        removals_per_day: UNLIMITED,
      },
    });
    const rows = await storage.db
      .selectFrom('customers')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .where('livemode', '=', 1)
      .where('deleted_at', 'is', null)
      .execute();
    return { workspaceId: ws.id, counts, seedSeconds, secret, ids: rows.map((r) => r.id) };
  } finally {
    await storage.close();
  }
}

/** Up to `n` customers spread over the list, each with the ETag the API answers for it now. */
async function readVersions(
  api: string,
  headers: Record<string, string>,
  ids: string[],
  n: number,
): Promise<{ id: string; etag: string }[]> {
  const step = Math.max(1, Math.floor(ids.length / n));
  const chosen = ids.filter((_, i) => i % step === 0).slice(0, n);
  const out: { id: string; etag: string }[] = [];
  for (let i = 0; i < chosen.length; i += 16) {
    await Promise.all(
      chosen.slice(i, i + 16).map(async (id) => {
        const res = await fetch(`${api}/customers/${id}`, { headers });
        await res.arrayBuffer();
        const etag = res.headers.get('etag');
        if (!res.ok || !etag) throw new Error(`GET /customers/${id}: ${res.status}, ETag ${etag}`);
        out.push({ id, etag });
      }),
    );
  }
  return out;
}

function header(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name) return String(v);
  return undefined;
}

const median = (xs: number[]) => quantile(xs, 0.5);
const r1 = (x: number) => Math.round(x * 10) / 10;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

async function main() {
  const startedAll = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'venue-bench-'));
  const children: Child[] = [];
  try {
    // The API runs as `npm start` runs it: the bundle, built from this tree first.
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
    if (build.status !== 0 || !existsSync(join(ROOT, 'dist/bundle/server.js'))) {
      throw new Error(`npm run build failed:\n${build.stdout ?? ''}${build.stderr ?? ''}`);
    }

    const databaseUrl = process.env.BENCH_DATABASE_URL ?? join(dir, 'bench.sqlite');
    const engine = isPostgresUrl(databaseUrl) ? 'postgres' : 'sqlite';
    log(`seeding ${CUSTOMERS} customers (${engine})…`);
    const prepared = await seed(databaseUrl);
    const { secret, ids, counts, seedSeconds } = prepared;
    // The ceilings read SQLite: the same file, or on PostgreSQL a SQLite file seeded alike.
    let ceilingDb: Prepared & { path: string };
    if (engine === 'sqlite') {
      ceilingDb = { ...prepared, path: sqlitePath(databaseUrl) };
    } else {
      const path = join(dir, 'ceilings.sqlite');
      log(`seeding ${CUSTOMERS} customers in ${path} for the ceilings…`);
      ceilingDb = { ...(await seed(path)), path };
    }

    // start_ms: the median of COLD_STARTS starts to the first 200 from /ready; the last one stays up.
    const apiEnv = { DATABASE_URL: databaseUrl, DEMO: 'off', LOG_LEVEL: 'warn', BASE_URL: '' };
    const starts: number[] = [];
    let api: Child | undefined;
    for (let i = 0; i < COLD_STARTS; i++) {
      const started = await startUntilReady(['dist/bundle/server.js'], apiEnv);
      starts.push(started.readyMs);
      if (i < COLD_STARTS - 1) await started.child.stop();
      else api = started.child;
    }
    children.push(api!);
    const startMs = median(starts);
    log(`API ready in ${starts.map((s) => s.toFixed(0)).join(', ')} ms`);

    const headers = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
    const one = await fetch(`${api!.url}/customers/${ids[0]}`, { headers });
    if (!one.ok) throw new Error(`GET /customers/{id}: ${one.status} ${await one.text()}`);
    const bodyFile = join(dir, 'customer.json');
    writeFileSync(bodyFile, Buffer.from(await one.arrayBuffer()));

    const listening = /listening at (http:\/\/\S+)/;
    const raw = await startChild(['bench/ceilings/raw-node-http.mjs'], { BODY_FILE: bodyFile }, listening);
    children.push(raw);
    const sqliteEnv = { DB_PATH: ceilingDb.path, WORKSPACE_ID: ceilingDb.workspaceId };
    const bare = await startChild(['bench/ceilings/bare-fastify-sqlite.mjs'], sqliteEnv, listening);
    children.push(bare);
    const insertEnv = { DB_PATH: ceilingDb.path, WORKSPACE_ID: `${ceilingDb.workspaceId}_ceiling` };
    const insert = await startChild(['bench/ceilings/bare-fastify-insert.mjs'], insertEnv, listening);
    children.push(insert);

    const scenarios: ScenarioResult[] = [];
    const record = (name: string, ours: Load, ceiling: string, theirs: Load) => {
      scenarios.push({ name, ...ours, ceiling, ceiling_rps: theirs.rps });
      log(
        `  ${name}: ${ours.rps.toFixed(0)}/s (p99 ${r1(ours.p99)} ms, errors ${ours.errors}); ${ceiling} ${theirs.rps.toFixed(0)}/s`,
      );
    };
    const json = { ...headers, 'content-type': 'application/json' };
    const create: autocannon.Options = {
      url: '',
      method: 'POST',
      headers: { ...json, 'idempotency-key': 'bench-[<id>]' },
      // `[<id>]` becomes a fresh id per request: every POST is a new Idempotency-Key and email.
      body: JSON.stringify({ first_name: 'Bench', email: 'bench-[<id>]@example.com' }),
      idReplacement: true,
    };

    log('get_one…');
    const getOne = await load({
      url: api!.url,
      headers,
      requests: [
        {
          setupRequest: (req) => ({ ...req, path: `/customers/${ids[Math.floor(Math.random() * ids.length)]}` }),
        },
      ],
    });
    record('get_one', getOne, 'raw_node_http', await load({ url: raw.url }));

    log('page_100…');
    const page = await load({ url: `${api!.url}/customers?limit=${PAGE}`, headers });
    record('page_100', page, 'bare_fastify_sqlite', await load({ url: `${bare.url}/customers?limit=${PAGE}` }));

    log('sync…');
    const apiWalk = (c: string | undefined) =>
      `${api!.url}/customers?limit=${PAGE}${c ? `&starting_after=${encodeURIComponent(c)}` : ''}`;
    const bareWalk = (c: string | undefined) =>
      `${bare.url}/customers?limit=${PAGE}${c ? `&after=${encodeURIComponent(c)}` : ''}`;
    await walk(apiWalk, headers, 20);
    const sync = await walk(apiWalk, headers);
    await walk(bareWalk, {}, 20);
    const bareSync = await walk(bareWalk, {});
    if (sync.records !== ids.length) {
      log(`  sync walked ${sync.records} customers of ${ids.length}`);
      sync.errors++;
    }
    record('sync', sync, 'bare_fastify_sqlite', bareSync);

    log('create…');
    const created = await load({ ...create, url: `${api!.url}/customers` });
    record('create', created, 'bare_fastify_insert', await load({ ...create, url: `${insert.url}/customers` }));

    log('update…');
    // A pool of customers with the version each one has now. A customer is taken from the
    // pool for one PATCH and put back with the ETag of the answer, so it is never in flight
    // twice and If-Match is always the real, current version: any 412 is a real error.
    const pool = await readVersions(api!.url, headers, ids, UPDATE_POOL);
    let n = 0;
    const updated = await load({
      url: api!.url,
      method: 'PATCH',
      headers: json,
      requests: [
        {
          setupRequest: (req, context: { taken?: { id: string; etag: string } }) => {
            const taken = pool.shift();
            if (!taken) throw new Error('update: the pool of customers ran dry');
            context.taken = taken;
            return {
              ...req,
              path: `/customers/${taken.id}`,
              headers: { ...json, 'if-match': taken.etag },
              body: JSON.stringify({ nickname: `bench ${n++}` }),
            };
          },
          onResponse: (status, _body, context: { taken?: { id: string; etag: string } }, resHeaders) => {
            const taken = context.taken;
            if (!taken) return;
            context.taken = undefined;
            const etag = status === 200 ? header(resHeaders as Record<string, unknown>, 'etag') : undefined;
            pool.push(etag ? { id: taken.id, etag } : taken);
          },
        },
      ],
    });
    record('update', updated, 'bare_fastify_insert', await load({ ...create, url: `${insert.url}/customers` }));

    const apiPeak = api!.peakRssMiB();
    const barePeak = bare.peakRssMiB();
    const doc = {
      engine,
      customers: counts.customers,
      connections: CONNECTIONS,
      scenarios: scenarios.map((s) => ({
        name: s.name,
        rps: Math.round(s.rps),
        p50_ms: r1(s.p50),
        p99_ms: r1(s.p99),
        errors: s.errors,
        ceiling: s.ceiling,
        ceiling_rps: Math.round(s.ceiling_rps),
        ratio: r3(s.rps / s.ceiling_rps),
      })),
      memory: { peak_rss_mib: r1(apiPeak), ceiling_rss_mib: r1(barePeak), ratio: r3(apiPeak / barePeak) },
      start_ms: r1(startMs),
    };

    if (!JSON_OUT) {
      const totalSeconds = (performance.now() - startedAll) / 1000;
      console.log(
        `\nvenue-api bench (${engine}): ${counts.customers} customers, ${counts.bookings} bookings, ` +
          `${counts.orders} orders, seeded in ${seedSeconds.toFixed(1)} s; ${CONNECTIONS} connections, ` +
          `${WARMUP} s warm-up + ${SECONDS} s per measurement; ${totalSeconds.toFixed(0)} s so far\n`,
      );
      const cols = [10, 10, 9, 9, 8, 21, 12, 7];
      const row = (cells: string[]) => cells.map((c, i) => c.padEnd(cols[i] ?? 0)).join('');
      console.log(row(['scenario', 'per s', 'p50 ms', 'p99 ms', 'errors', 'ceiling', 'ceiling/s', 'ratio']));
      for (const s of doc.scenarios) {
        console.log(
          row([
            s.name,
            String(s.rps),
            String(s.p50_ms),
            String(s.p99_ms),
            String(s.errors),
            s.ceiling,
            String(s.ceiling_rps),
            s.ratio.toFixed(3),
          ]),
        );
      }
      console.log(
        `\nmemory: API peak RSS ${doc.memory.peak_rss_mib} MiB, bare_fastify_sqlite ${doc.memory.ceiling_rss_mib} MiB: ` +
          `${doc.memory.ratio.toFixed(2)}x`,
      );
      console.log(`start: ${doc.start_ms} ms to the first 200 from /ready (median of ${COLD_STARTS})`);
      console.log('(sync: per s is customers a second, p50/p99 per page of 100)\n');
    }
    console.log(JSON.stringify(doc));
    if (scenarios.some((s) => s.errors > 0)) process.exitCode = 1;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    rmSync(dir, { recursive: true, force: true });
    log(`bench took ${((performance.now() - startedAll) / 1000).toFixed(0)} s`);
  }
}

await main();
