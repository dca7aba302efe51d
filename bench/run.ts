import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { isPostgresUrl, migrate, openStorage } from '../src/db/index.ts';
import { sqlitePath } from '../src/db/database-url.ts';
import { createKey } from '../src/resources/keys/key.service.ts';
import { createWorkspace } from '../src/resources/workspaces/workspace.service.ts';
import { seedWorkspace, type SeedCounts } from '../src/seed/seed.service.ts';
import { cpuSince, TICK_US } from './cpu.ts';
import { addEndpoint, retireEndpoint } from './endpoint.ts';
import { pgAdmin } from './pg-admin.ts';
import { ROOT, startChild, startUntilReady, type Child } from './processes.ts';

/**
 * `npm run bench`: the API's throughput, latency, memory and cold start, each beside a
 * ceiling measured in the same run on the same data (bench/ceilings/, each its own process):
 *
 * - get_one: GET /customers/{id} of random customers; ceilings raw_node_http (node:http
 *   answering the same bytes, constant: the machine's limit) and the engine's bare route
 *   running the same single statement for one customer (bare_fastify_sqlite_get or
 *   bare_fastify_pg: what our own layers cost); on PostgreSQL with REDIS_URL also
 *   bare_fastify_pg_limits, that route after one EVALSHA adding to three counters with expiry
 *   (what limits kept in Redis cost at the least);
 * - page_100: GET /customers?limit=100; ceiling bare_fastify_sqlite or bare_fastify_pg (one
 *   prepared statement paging the same rows by (created_at, id) desc);
 * - sync: one client walks every customer, 100 a page, following next_cursor; rps is records
 *   a second; ceiling the same walk over the same bare route;
 * - create: POST /customers, a fresh Idempotency-Key and email each; ceiling
 *   bare_fastify_insert (one row per request in its own transaction, WAL, synchronous=FULL)
 *   or bare_fastify_pg_insert (one row per request, its own transaction), and on PostgreSQL
 *   bare_fastify_pg_write_tx (a create's rows, the stored answer, the customer, its change-log
 *   row and its event, in one transaction of plain named statements: a create's floor);
 * - update: PATCH /customers/{id} with If-Match; ceilings the same insert and write_tx routes.
 *   Each customer of a pool is read first (its ETag) and is in flight on one connection at a
 *   time; the ETag of each 200 becomes the next If-Match for it, so no 412 is expected and
 *   every one counts.
 *
 * `--database postgres`: the API and its ceilings on one PostgreSQL database (a new one on
 * BENCH_PG_SERVER, postgres://postgres@127.0.0.1:5432 by default, dropped at the end; or
 * BENCH_DATABASE_URL), the pools PG_POOL_SIZE connections each. A scenario's first ceiling is
 * its `ceiling` and `ratio`; the others are under `also`: raw_node_http measured once after
 * the rounds, a fair floor (bare_fastify_pg_limits, bare_fastify_pg_write_tx) in every round,
 * its ratio the median of the rounds' (`rounds`). With REDIS_URL the API keeps its limits in
 * Redis, bare_fastify_pg_limits runs, and an API process of its own without REDIS_URL takes its
 * turns in get_one's and create's rounds: `redis` is {get_one_ratio, create_ratio}, the median
 * of the rounds' rates with Redis over those without, each round's beside it. With REDIS_URL
 * unset there is neither that ceiling nor that block.
 *
 * get_one, create and update (and create_webhook) carry `cpu_us_per_request`: the CPU time (user +
 * system, from /proc: bench/cpu.ts) over the measured seconds per answered request of each
 * tier: `api`, the API's process; on PostgreSQL `postgres`, every process of that name on this
 * machine (the server's backends and its background writers); with REDIS_URL `redis`, every
 * `redis-server`. Off Linux, 0. It moves less with the machine's load than a rate, and
 * counts what the rate hides (the delivery worker's work while its queue grows). Their fair
 * floors under `also` (bare_fastify_pg_limits, bare_fastify_pg_write_tx) carry it too, `api`
 * being the floor's own process, so each tier's cost is set beside what the same work costs.
 *
 * `--webhook`: also create_webhook, the create scenario again with one enabled endpoint in the
 * key's mode (live) posting every customer.created to a local receiver answering 204
 * (bench/webhook-receiver.mjs; the API runs with WEBHOOK_ALLOW_HTTP and
 * WEBHOOK_ALLOW_PRIVATE on), its ratio against create's ceiling measurement; the endpoint is
 * made just before it and deleted, with its deliveries, just after, so no other scenario has one.
 *
 * `--tracing RATIO`: the API runs with tracing on (docs/operations.md "Tracing"), exporting
 * over OTLP/HTTP to a local collector that counts what it receives (bench/otlp-sink.mjs),
 * sampling RATIO of the traces (`parentbased_traceidratio`); the document's `tracing` gives
 * the ratio, the exports and spans received, and `get_one_ratio`: right after get_one's
 * rounds, get_one measured in turns on the traced API and on an API process of its own with
 * tracing off, BENCH_ROUNDS pairs, the median of their ratios (each pair's in `get_one_rounds`).
 *
 * `--workers N` (PostgreSQL): then the same API scenarios against `venue-api serve --workers N`
 * (one primary, N serving processes on one port), reported under `workers` beside the one
 * process's figures, after the one process has stopped.
 *
 * The API is `npm start`'s process (`node dist/bundle/server.js`, built first); the load is
 * autocannon in this process, CONNECTIONS connections, after a warm-up. `--quick`: 100,000
 * customers (default 1,000,000); `--json`: only the JSON document on stdout (progress goes
 * to stderr). Settings: BENCH_CUSTOMERS, BENCH_SECONDS per measurement (10), BENCH_WARMUP
 * seconds (3), BENCH_CONNECTIONS (32), BENCH_UPDATE_POOL (2048), BENCH_DATABASE_URL (a fresh
 * SQLite file, or PostgreSQL database, when unset), BENCH_ROUNDS (1): each scenario and its
 * ceiling measured that many times in turns, the order swapped each round, reported as the
 * round of the median ratio with every round's ratio beside it (`rounds`), since on a shared
 * machine the speed moves between minutes and one measurement of each can land in different
 * ones (create_webhook takes turns with create, its `of_create` the median of theirs).
 * Exits non-zero when any answer was not 2xx.
 */
const QUICK = process.argv.includes('--quick');
const DATABASE = process.argv[process.argv.indexOf('--database') + 1] ?? 'sqlite';
if (process.argv.includes('--database') && DATABASE !== 'sqlite' && DATABASE !== 'postgres') {
  throw new Error(`--database sqlite|postgres, got ${DATABASE}`);
}
const WORKERS = Number(process.argv.includes('--workers') ? process.argv[process.argv.indexOf('--workers') + 1] : 1);
if (!Number.isInteger(WORKERS) || WORKERS < 1)
  throw new Error('--workers N: a whole number of server processes, 1 or more');
if (WORKERS > 1 && DATABASE !== 'postgres' && !process.env.BENCH_DATABASE_URL?.startsWith('postgres')) {
  throw new Error('--workers N needs --database postgres: SQLite has one writer (serve refuses several workers)');
}
const WEBHOOK = process.argv.includes('--webhook');
const TRACING = process.argv.includes('--tracing') ? Number(process.argv[process.argv.indexOf('--tracing') + 1]) : null;
if (TRACING !== null && !(TRACING >= 0 && TRACING <= 1))
  throw new Error('--tracing RATIO: a sampling ratio from 0 to 1');
const PG_SERVER = process.env.BENCH_PG_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const JSON_OUT = process.argv.includes('--json');
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? (QUICK ? 100_000 : 1_000_000));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const UPDATE_POOL = Number(process.env.BENCH_UPDATE_POOL ?? 2048);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error(`BENCH_ROUNDS: a whole number, 1 or more, got ${ROUNDS}`);
const COLD_STARTS = 3;
/** The floor that is the API without REDIS_URL: its ratios are `redis`, not a ceiling under `also`. */
const WITHOUT_REDIS = 'api_without_redis';
const UNLIMITED = 1_000_000_000;
const PAGE = 100;

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time (user + system) per answered request in µs, of each process or kind of process asked for. */
  cpuUs?: Record<string, number>;
}

interface ScenarioResult extends Load {
  name: string;
  /** Every round's ratio to the ceiling, when there was more than one (BENCH_ROUNDS). */
  rounds?: number[];
  ceiling: string;
  ceiling_rps: number;
  /** Other ceilings: a floor measured in the rounds carries its ratio and every round's. */
  also: { ceiling: string; ceiling_rps: number; ratio?: number; rounds?: number[]; cpuUs?: Record<string, number> }[];
  /** create_webhook only: its rate over create's, and what became of its deliveries. */
  webhook?: WebhookOutcome;
}

interface WebhookOutcome {
  create_rps: number;
  /** Every round's rate over create's, when there was more than one. */
  of_create_rounds?: number[];
  deliveries: { delivered: number; pending: number; failed: number };
}

/** A new PostgreSQL database for the run, and how to drop it. */
async function pgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `venue_bench_${randomBytes(6).toString('hex')}`;
  await pgAdmin(PG_SERVER, `create database ${name}`);
  return {
    url: `${PG_SERVER}/${name}`,
    drop: async () => {
      await pgAdmin(PG_SERVER, `drop database if exists ${name} with (force)`);
    },
  };
}

/** Whose CPU a measurement counts, by name: a process (its pid), or every process of a name (`postgres`). */
type CpuOf = Record<string, number | string>;

/**
 * A warm-up of WARMUP seconds, then SECONDS measured; `errors` is every answer not 2xx. With
 * `cpu`, also the CPU time per request of each process it names over the measured part:
 * steadier than requests a second on a shared machine.
 */
async function load(options: autocannon.Options, cpu: CpuOf = {}): Promise<Load> {
  const base = { connections: CONNECTIONS, ...options };
  if (WARMUP > 0) await autocannon({ ...base, duration: WARMUP });
  const counting = Object.entries(cpu).map(([name, of]) => [name, cpuSince(of)] as const);
  const r = await autocannon({ ...base, duration: SECONDS });
  const perRequest = counting.map(([name, spent]) => [name, (spent() * TICK_US) / r.requests.total]);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.non2xx + r.errors,
    ...(counting.length > 0 && r.requests.total > 0 ? { cpuUs: Object.fromEntries(perRequest) } : {}),
  };
}

/** A floor measured in `paired`'s rounds: its load in the round of its median ratio, that ratio, every round's. */
interface Floor {
  name: string;
  load: Load;
  ratio: number;
  ratios: number[];
}

/** What `paired` measured: the round of the median ratio, and every round's ratio; each floor's likewise. */
interface Paired {
  ours: Load;
  theirs: Load;
  ratios: number[];
  floors: Floor[];
}

/** The index of the round whose ratio is the median (the lower middle one for an even count). */
function medianRound(ratios: number[]): number {
  const order = ratios.map((ratio, i) => ({ ratio, i })).sort((a, b) => a.ratio - b.ratio);
  return order[Math.floor((order.length - 1) / 2)]!.i;
}

/**
 * Ours and theirs ROUNDS times in turns, ours first in odd rounds and theirs first in even ones;
 * answers the round whose ratio is the median, so its rates and its ratio belong together.
 * Floors (a scenario's fair floor, under `also`) take their turns in the same rounds after
 * theirs, so their ratios are as steady as the ceiling's: one measurement a few minutes from
 * ours moves with the machine.
 */
async function paired(
  ours: () => Promise<Load>,
  theirs: () => Promise<Load>,
  floors: [string, () => Promise<Load>][] = [],
): Promise<Paired> {
  const rounds: { ours: Load; theirs: Load; floors: Load[] }[] = [];
  const measureFloors = async () => {
    const loads: Load[] = [];
    for (const [, measure] of floors) loads.push(await measure());
    return loads;
  };
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      const o = await ours();
      const t = await theirs();
      rounds.push({ ours: o, theirs: t, floors: await measureFloors() });
    } else {
      const t = await theirs();
      const f = await measureFloors();
      rounds.push({ ours: await ours(), theirs: t, floors: f });
    }
  }
  const ratios = rounds.map((r) => r.ours.rps / r.theirs.rps);
  const median = rounds[medianRound(ratios)]!;
  return {
    ours: median.ours,
    theirs: median.theirs,
    ratios,
    floors: floors.map(([name], j) => {
      const of = rounds.map((r) => r.ours.rps / r.floors[j]!.rps);
      const at = medianRound(of);
      return { name, load: rounds[at]!.floors[j]!, ratio: of[at]!, ratios: of };
    }),
  };
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

/** The workspace's live customers now, as a walk of the list finds them. */
async function liveCustomers(databaseUrl: string, workspaceId: string): Promise<number> {
  const storage = await openStorage(databaseUrl);
  try {
    const row = await storage.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('livemode', '=', 1)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
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
const roundedCpu = (cpu: Record<string, number>) =>
  Object.fromEntries(Object.entries(cpu).map(([of, us]) => [of, Math.round(us)]));

async function main() {
  const startedAll = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'venue-bench-'));
  const children: Child[] = [];
  let dropDatabase: (() => Promise<void>) | undefined;
  try {
    // The API runs as `npm start` runs it: the bundle, built from this tree first.
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
    if (build.status !== 0 || !existsSync(join(ROOT, 'dist/bundle/server.js'))) {
      throw new Error(`npm run build failed:\n${build.stdout ?? ''}${build.stderr ?? ''}`);
    }

    let databaseUrl = process.env.BENCH_DATABASE_URL;
    if (!databaseUrl && DATABASE === 'postgres') {
      const made = await pgDatabase();
      databaseUrl = made.url;
      dropDatabase = made.drop;
    }
    databaseUrl ??= join(dir, 'bench.sqlite');
    const engine = isPostgresUrl(databaseUrl) ? 'postgres' : 'sqlite';
    // The API's pool size, unless PG_POOL_SIZE says otherwise; the ceiling's pool is as large.
    const poolSize = loadConfig({ PG_POOL_SIZE: process.env.PG_POOL_SIZE }).pgPoolSize;
    const redis = engine === 'postgres' && Boolean(process.env.REDIS_URL);
    // cpu_us_per_request's processes: the API's, and every one of the database server and of
    // Redis on this machine when the API uses them (0 when they run elsewhere).
    const cpuOf = (pid: number | undefined): CpuOf => ({
      ...(pid === undefined ? {} : { api: pid }),
      ...(engine === 'postgres' ? { postgres: 'postgres' } : {}),
      ...(redis ? { redis: 'redis-server' } : {}),
    });
    log(`seeding ${CUSTOMERS} customers (${engine})…`);
    const prepared = await seed(databaseUrl);
    const { secret, ids, counts, seedSeconds, workspaceId } = prepared;

    // start_ms: the median of COLD_STARTS starts to the first 200 from /ready; the last one stays up.
    const apiEnv: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      DEMO: 'off',
      LOG_LEVEL: 'warn',
      BASE_URL: '',
      PG_POOL_SIZE: String(poolSize),
    };
    // SQLite serves alone; on PostgreSQL the limits go to Redis when the environment names one.
    if (!redis) apiEnv.REDIS_URL = '';
    // The local receiver is plain http on loopback; without an endpoint these settings do nothing.
    if (WEBHOOK) Object.assign(apiEnv, { WEBHOOK_ALLOW_HTTP: 'on', WEBHOOK_ALLOW_PRIVATE: 'on' });
    // Tracing on, as an operator turns it on: the standard variables, a collector on loopback.
    let sink: Child | undefined;
    if (TRACING !== null) {
      sink = await startChild(['bench/otlp-sink.mjs'], {}, /listening at (http:\/\/\S+)/);
      children.push(sink);
      Object.assign(apiEnv, {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_SERVICE_NAME: 'venue-api-bench',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: String(TRACING),
      });
    }
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
    // The engine's bare routes: reads (bare), one customer (bareGet), inserts (insert); on
    // PostgreSQL a create's rows in one transaction (writeTx), and with Redis, the read behind
    // a limit's counters (limits).
    let bare: Child;
    let insert: Child;
    let writeTx: Child | undefined;
    let limits: Child | undefined;
    const names =
      engine === 'sqlite'
        ? { read: 'bare_fastify_sqlite', get: 'bare_fastify_sqlite_get', insert: 'bare_fastify_insert' }
        : { read: 'bare_fastify_pg', get: 'bare_fastify_pg', insert: 'bare_fastify_pg_insert' };
    if (engine === 'sqlite') {
      const path = sqlitePath(databaseUrl);
      bare = await startChild(
        ['bench/ceilings/bare-fastify-sqlite.mjs'],
        { DB_PATH: path, WORKSPACE_ID: workspaceId },
        listening,
      );
      children.push(bare);
      const insertEnv = { DB_PATH: path, WORKSPACE_ID: `${workspaceId}_ceiling` };
      insert = await startChild(['bench/ceilings/bare-fastify-insert.mjs'], insertEnv, listening);
      children.push(insert);
    } else {
      const pgEnv = { DATABASE_URL: databaseUrl, WORKSPACE_ID: workspaceId, POOL_SIZE: String(poolSize) };
      bare = await startChild(['bench/ceilings/bare-fastify-pg.mjs'], pgEnv, listening);
      children.push(bare);
      insert = bare;
      const writeTxEnv = { ...pgEnv, WORKSPACE_ID: `${workspaceId}_ceiling` };
      writeTx = await startChild(['bench/ceilings/bare-fastify-pg-write-tx.mjs'], writeTxEnv, listening);
      children.push(writeTx);
      if (redis) {
        const limitsEnv = { ...pgEnv, REDIS_URL: process.env.REDIS_URL! };
        limits = await startChild(['bench/ceilings/bare-fastify-pg-limits.mjs'], limitsEnv, listening);
        children.push(limits);
      }
    }
    // The bare route answers the same customer: say so when its bytes differ from the API's.
    const bareOne = await (await fetch(`${bare.url}/customers/${ids[0]}`)).text();
    const apiOne = JSON.stringify(JSON.parse(readFileSync(bodyFile, 'utf8')));
    if (JSON.stringify(JSON.parse(bareOne)) !== apiOne) log(`  ${names.get}'s customer differs from the API's`);

    const scenarios: ScenarioResult[] = [];
    const record = (
      name: string,
      { ours, theirs, ratios, floors }: Paired,
      ceiling: string,
      also: [string, Load][] = [],
      webhook?: WebhookOutcome,
    ) => {
      scenarios.push({
        name,
        ...ours,
        ceiling,
        ceiling_rps: theirs.rps,
        also: [
          ...also.map(([c, l]) => ({ ceiling: c, ceiling_rps: l.rps })),
          ...floors
            .filter((f) => f.name !== WITHOUT_REDIS)
            .map((f) => ({
              ceiling: f.name,
              ceiling_rps: f.load.rps,
              ratio: f.ratio,
              ...(f.ratios.length > 1 ? { rounds: f.ratios } : {}),
              ...(f.load.cpuUs ? { cpuUs: f.load.cpuUs } : {}),
            })),
        ],
        ...(ratios.length > 1 ? { rounds: ratios } : {}),
        ...(webhook ? { webhook } : {}),
      });
      const others = [...also, ...floors.map((f): [string, Load] => [f.name, f.load])]
        .map(([c, l]) => `; ${c} ${l.rps.toFixed(0)}/s`)
        .join('');
      log(
        `  ${name}: ${ours.rps.toFixed(0)}/s (p99 ${r1(ours.p99)} ms, errors ${ours.errors}); ${ceiling} ${theirs.rps.toFixed(0)}/s${others}`,
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

    // A second API process with other settings, measured and stopped: what a setting costs.
    const ownApi = async <T>(env: Record<string, string>, measure: (url: string) => Promise<T>): Promise<T> => {
      const other = (await startUntilReady(['dist/bundle/server.js'], env)).child;
      try {
        return await measure(other.url);
      } finally {
        await other.stop();
      }
    };
    // With Redis, an API process of its own without REDIS_URL (limits counted in the process),
    // taking its turns in get_one's and create's rounds: `redis`, its ratios. Stopped after create.
    const noRedisApi = redis
      ? (await startUntilReady(['dist/bundle/server.js'], { ...apiEnv, REDIS_URL: '' })).child
      : null;
    if (noRedisApi) children.push(noRedisApi);
    const withoutRedis = (measure: (url: string) => Promise<Load>): [string, () => Promise<Load>][] =>
      noRedisApi ? [[WITHOUT_REDIS, () => measure(noRedisApi.url)]] : [];

    const randomCustomer: autocannon.Request[] = [
      { setupRequest: (req) => ({ ...req, path: `/customers/${ids[Math.floor(Math.random() * ids.length)]}` }) },
    ];
    const getOneOf = (url: string, cpu?: CpuOf) => load({ url, headers, requests: randomCustomer }, cpu);
    log('get_one…');
    const rawLoad = () => load({ url: raw.url });
    const bareGetOf = (url: string, cpu?: CpuOf) => () => load({ url, requests: randomCustomer }, cpu);
    const bareGet = bareGetOf(bare.url);
    // On SQLite get_one's ceiling stays raw_node_http (the documents before it compare so);
    // on PostgreSQL the bare route is the ceiling, the machine's limit beside it (measured once),
    // and with Redis the bare route behind a limit's counters, in the rounds.
    const limitsFloor: [string, () => Promise<Load>][] = limits
      ? [['bare_fastify_pg_limits', bareGetOf(limits.url, cpuOf(limits.process.pid))]]
      : [];
    const getOne = await paired(
      () => getOneOf(api!.url, cpuOf(api!.process.pid)),
      engine === 'sqlite' ? rawLoad : bareGet,
      [...limitsFloor, ...withoutRedis((url) => getOneOf(url))],
    );
    if (engine === 'sqlite') record('get_one', getOne, 'raw_node_http', [[names.get, await bareGet()]]);
    else record('get_one', getOne, names.get, [['raw_node_http', await rawLoad()]]);
    // With tracing on, get_one once more in turns against an API process of its own with it
    // off, each round a pair a few seconds apart: what tracing costs, apart from the machine's drift.
    let untraced: Paired | undefined;
    if (sink) {
      const offEnv = Object.fromEntries(Object.entries(apiEnv).filter(([k]) => !k.startsWith('OTEL_')));
      untraced = await ownApi(offEnv, (url) =>
        paired(
          () => getOneOf(api!.url),
          () => getOneOf(url),
        ),
      );
      log(`  get_one with tracing over without, each round: ${untraced.ratios.map((r) => r.toFixed(2)).join(', ')}`);
    }

    log('page_100…');
    const pageOf = (url: string) => load({ url: `${url}/customers?limit=${PAGE}`, headers });
    const page = await paired(
      () => pageOf(api!.url),
      () => load({ url: `${bare.url}/customers?limit=${PAGE}` }),
    );
    record('page_100', page, names.read);

    log('sync…');
    const walkOf = (url: string) => (c: string | undefined) =>
      `${url}/customers?limit=${PAGE}${c ? `&starting_after=${encodeURIComponent(c)}` : ''}`;
    const apiWalk = walkOf(api!.url);
    const bareWalk = (c: string | undefined) =>
      `${bare.url}/customers?limit=${PAGE}${c ? `&after=${encodeURIComponent(c)}` : ''}`;
    await walk(apiWalk, headers, 20);
    const syncOf = async (url: string, expected = ids.length) => {
      const walked = await walk(walkOf(url), headers);
      if (walked.records !== expected) {
        log(`  sync walked ${walked.records} customers of ${expected}`);
        walked.errors++;
      }
      return walked;
    };
    await walk(bareWalk, {}, 20);
    const sync = await paired(
      () => syncOf(api!.url),
      () => walk(bareWalk, {}),
    );
    record('sync', sync, names.read);

    log('create…');
    const createOf = (url: string, cpu?: CpuOf) => load({ ...create, url: `${url}/customers` }, cpu);
    const createCeiling = () => load({ ...create, url: `${insert.url}/customers` });
    // A write's floor beside the one-row ceiling, in the rounds.
    const writeFloor: [string, () => Promise<Load>][] = writeTx
      ? [
          [
            'bare_fastify_pg_write_tx',
            () => load({ ...create, url: `${writeTx.url}/customers` }, cpuOf(writeTx.process.pid)),
          ],
        ]
      : [];
    const created = await paired(() => createOf(api!.url, cpuOf(api!.process.pid)), createCeiling, [
      ...writeFloor,
      ...withoutRedis((url) => createOf(url)),
    ]);
    record('create', created, names.insert);
    await noRedisApi?.stop();

    if (WEBHOOK) {
      log('create_webhook…');
      const receiver = await startChild(['bench/webhook-receiver.mjs'], {}, listening);
      children.push(receiver);
      const deliveries = { delivered: 0, pending: 0, failed: 0 };
      const withEndpoint = async () => {
        // The write path looks its endpoints up on every write: one made now counts at once.
        const endpoint = await addEndpoint(databaseUrl, workspaceId, `${receiver.url}/hooks`);
        const measured = await createOf(api!.url, cpuOf(api!.process.pid));
        const left = await retireEndpoint(databaseUrl, workspaceId, endpoint);
        for (const k of ['delivered', 'pending', 'failed'] as const) deliveries[k] += left[k];
        return measured;
      };
      // With one round, against create's own measurements; with more, in turns with create.
      const hooked =
        ROUNDS > 1
          ? await paired(withEndpoint, () => createOf(api!.url, cpuOf(api!.process.pid)))
          : { ours: await withEndpoint(), theirs: created.ours, ratios: [], floors: [] };
      log(
        `  deliveries: ${deliveries.delivered} delivered, ${deliveries.pending} pending, ${deliveries.failed} failed`,
      );
      // Its ratio is against the create ceiling of create's median round; of_create against
      // the create it took turns with.
      record('create_webhook', { ...hooked, theirs: created.theirs, ratios: [] }, names.insert, [], {
        create_rps: hooked.theirs.rps,
        ...(hooked.ratios.length > 1 ? { of_create_rounds: hooked.ratios } : {}),
        deliveries,
      });
    }

    log('update…');
    // A pool of customers with the version each one has now. A customer is taken from the
    // pool for one PATCH and put back with the ETag of the answer, so it is never in flight
    // twice and If-Match is always the real, current version: any 412 is a real error.
    const pool = await readVersions(api!.url, headers, ids, UPDATE_POOL);
    let n = 0;
    const updateOf = (url: string, cpu?: CpuOf) =>
      load(
        {
          url,
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
        },
        cpu,
      );
    const updated = await paired(() => updateOf(api!.url, cpuOf(api!.process.pid)), createCeiling, writeFloor);
    record('update', updated, names.insert);

    const apiPeak = api!.peakRssMiB();
    const barePeak = bare.peakRssMiB();

    // The same scenarios against N serving processes, the one process stopped first so the
    // two never share the machine; the update pool carries each customer's current ETag over.
    const perWorkers: { name: string; load: Load; one: Load }[] = [];
    if (WORKERS > 1) {
      await api!.stop();
      log(`--workers ${WORKERS}: serve --workers ${WORKERS}…`);
      const several = (
        await startUntilReady(['dist/bundle/cli/main.js', 'serve', '--workers', String(WORKERS)], apiEnv)
      ).child;
      children.push(several);
      const url = several.url;
      // Every worker warms up its key cache and statements before it is measured.
      await load({ url: `${url}/customers?limit=1`, headers });
      const runs: [string, () => Promise<Load>, Load][] = [
        ['get_one', () => getOneOf(url), getOne.ours],
        ['page_100', () => pageOf(url), page.ours],
        // The creates since the seed are customers too: the walk must find them all.
        ['sync', async () => syncOf(url, await liveCustomers(databaseUrl, workspaceId)), sync.ours],
        ['create', () => createOf(url), created.ours],
        ['update', () => updateOf(url), updated.ours],
      ];
      for (const [name, run, one] of runs) {
        const result = await run();
        perWorkers.push({ name, load: result, one });
        log(
          `  ${name} (${WORKERS} workers): ${result.rps.toFixed(0)}/s (p99 ${r1(result.p99)} ms, errors ${result.errors}); one process ${one.rps.toFixed(0)}/s`,
        );
      }
    }
    const tracing =
      sink && untraced
        ? {
            ratio: TRACING,
            get_one_ratio: r3(median(untraced.ratios)),
            get_one_rounds: untraced.ratios.map(r3),
            ...((await (await fetch(`${sink.url}/stats`)).json()) as { exports: number; spans: number }),
          }
        : undefined;
    // `redis`: the rounds' rates with Redis over those of the API without it.
    const without = (p: Paired) => p.floors.find((f) => f.name === WITHOUT_REDIS)!;
    const redisRatios = noRedisApi
      ? {
          get_one_ratio: r3(without(getOne).ratio),
          create_ratio: r3(without(created).ratio),
          get_one_rounds: without(getOne).ratios.map(r3),
          create_rounds: without(created).ratios.map(r3),
        }
      : null;
    const doc = {
      engine,
      ...(engine === 'postgres' ? { pool_size: poolSize } : {}),
      ...(tracing ? { tracing } : {}),
      ...(redisRatios ? { redis: redisRatios } : {}),
      customers: counts.customers,
      connections: CONNECTIONS,
      scenarios: scenarios.map((s) => ({
        name: s.name,
        rps: Math.round(s.rps),
        p50_ms: r1(s.p50),
        p99_ms: r1(s.p99),
        errors: s.errors,
        ...(s.cpuUs ? { cpu_us_per_request: roundedCpu(s.cpuUs) } : {}),
        ceiling: s.ceiling,
        ceiling_rps: Math.round(s.ceiling_rps),
        ratio: r3(s.rps / s.ceiling_rps),
        ...(s.rounds ? { rounds: s.rounds.map(r3) } : {}),
        ...(s.also.length > 0
          ? {
              also: s.also.map((a) => ({
                ceiling: a.ceiling,
                ceiling_rps: Math.round(a.ceiling_rps),
                ratio: r3(a.ratio ?? s.rps / a.ceiling_rps),
                ...(a.rounds ? { rounds: a.rounds.map(r3) } : {}),
                ...(a.cpuUs ? { cpu_us_per_request: roundedCpu(a.cpuUs) } : {}),
              })),
            }
          : {}),
        ...(s.webhook
          ? {
              create_rps: Math.round(s.webhook.create_rps),
              of_create: r3(s.rps / s.webhook.create_rps),
              ...(s.webhook.of_create_rounds ? { of_create_rounds: s.webhook.of_create_rounds.map(r3) } : {}),
              deliveries: s.webhook.deliveries,
            }
          : {}),
      })),
      memory: {
        peak_rss_mib: r1(apiPeak),
        ceiling: names.read,
        ceiling_rss_mib: r1(barePeak),
        ratio: r3(apiPeak / barePeak),
      },
      start_ms: r1(startMs),
      ...(perWorkers.length > 0
        ? {
            workers: {
              count: WORKERS,
              scenarios: perWorkers.map(({ name, load: l, one }) => ({
                name,
                rps: Math.round(l.rps),
                p50_ms: r1(l.p50),
                p99_ms: r1(l.p99),
                errors: l.errors,
                one_worker_rps: Math.round(one.rps),
                ratio: r3(l.rps / one.rps),
              })),
            },
          }
        : {}),
    };

    if (!JSON_OUT) {
      const totalSeconds = (performance.now() - startedAll) / 1000;
      console.log(
        `\nvenue-api bench (${engine}): ${counts.customers} customers, ${counts.bookings} bookings, ` +
          `${counts.orders} orders, seeded in ${seedSeconds.toFixed(1)} s; ${CONNECTIONS} connections, ` +
          `${WARMUP} s warm-up + ${SECONDS} s per measurement; ${totalSeconds.toFixed(0)} s so far\n`,
      );
      const cols = [10, 10, 9, 9, 8, 24, 12, 7];
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
        for (const a of s.also ?? []) {
          console.log(row(['', '', '', '', '', a.ceiling, String(a.ceiling_rps), a.ratio.toFixed(3)]));
        }
      }
      console.log(
        `\nmemory: API peak RSS ${doc.memory.peak_rss_mib} MiB, ${doc.memory.ceiling} ${doc.memory.ceiling_rss_mib} MiB: ` +
          `${doc.memory.ratio.toFixed(2)}x`,
      );
      console.log(`start: ${doc.start_ms} ms to the first 200 from /ready (median of ${COLD_STARTS})`);
      const cpuLine = (who: string, cpu: Record<string, number> | undefined) => {
        const tiers = Object.entries(cpu ?? {}).map(([of, us]) => `${of} ${us}`);
        if (tiers.length > 0) console.log(`${who}: CPU µs a request, ${tiers.join(', ')}`);
      };
      for (const s of doc.scenarios) {
        cpuLine(s.name, s.cpu_us_per_request);
        for (const a of s.also ?? []) cpuLine(`  ${a.ceiling}`, a.cpu_us_per_request);
      }
      if (doc.tracing) {
        console.log(
          `tracing at ${doc.tracing.ratio}: get_one ${doc.tracing.get_one_ratio.toFixed(3)}x its rate without (rounds ${doc.tracing.get_one_rounds.join(', ')})`,
        );
      }
      if (doc.redis) {
        console.log(
          `redis: get_one ${doc.redis.get_one_ratio.toFixed(3)}x, create ${doc.redis.create_ratio.toFixed(3)}x their rates without it`,
        );
      }
      for (const w of doc.workers?.scenarios ?? []) {
        console.log(
          `${doc.workers!.count} workers, ${w.name}: ${w.rps}/s (p99 ${w.p99_ms} ms, errors ${w.errors}), ` +
            `${w.ratio.toFixed(2)}x one process's ${w.one_worker_rps}/s`,
        );
      }
      const hooked = doc.scenarios.find((s) => s.name === 'create_webhook');
      if (hooked?.deliveries) {
        console.log(
          `create_webhook: ${hooked.of_create?.toFixed(3)} of create's ${hooked.create_rps}/s; deliveries ` +
            `${hooked.deliveries.delivered} delivered, ${hooked.deliveries.pending} pending, ${hooked.deliveries.failed} failed`,
        );
      }
      console.log('(sync: per s is customers a second, p50/p99 per page of 100)\n');
    }
    console.log(JSON.stringify(doc));
    if (scenarios.some((s) => s.errors > 0) || perWorkers.some((w) => w.load.errors > 0)) process.exitCode = 1;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await dropDatabase?.();
    rmSync(dir, { recursive: true, force: true });
    log(`bench took ${((performance.now() - startedAll) / 1000).toFixed(0)} s`);
  }
}

await main();
