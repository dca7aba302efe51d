import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { isPostgresUrl } from '../src/db/index.ts';
import { cpuSince, TICK_US } from './cpu.ts';
import { addEndpoint, retireEndpoint } from './endpoint.ts';
import { pgAdmin } from './pg-admin.ts';
import { ROOT, startChild, startUntilReady, type Child } from './processes.ts';
import { seedBench } from './seed.ts';

/**
 * `node --import tsx bench/ab.ts A B … [--scenarios get_one,create] [--rounds 5]`: builds compared
 * in turns on one SQLite file, for a change whose effect is smaller than the machine's noise.
 * A and B are bundles copied aside (`cp -r dist/bundle dist/ab/A` after each build), each
 * optionally with settings of its own (`A:OTEL_EXPORTER_OTLP_ENDPOINT=http://…,K=V`). Each
 * round starts every bundle in turn on the same file, warms it up, then loads it for
 * AB_SECONDS and reads the server's CPU time (user + system, every thread) from
 * /proc/<pid>/stat: CPU per request holds steadier than requests a second on a shared
 * machine. Prints one JSON line per measurement and a summary of ranges per bundle.
 * Settings: AB_CUSTOMERS (100,000), AB_SECONDS (8), AB_WARMUP (2), AB_CONNECTIONS (32),
 * AB_DB (a seeded file to reuse; seeded there when absent). A bundle whose migrations differ
 * starts from `AB_DB.<bundle>.template` when there is one (the same file migrated ahead of
 * time), so no bundle migrates while it is measured.
 * AB_DB may be a PostgreSQL URL (`postgres://…/ab20k`): that database is seeded once (made when
 * absent) and each measurement runs on a copy of it (`CREATE DATABASE … TEMPLATE`), made
 * afresh before each bundle's turn; both bundles must then share one schema. Each line then
 * also has pg_cpu_us: the CPU of every process named postgres, per request.
 * AB_CPU_PROF=DIR: each server runs with `node --cpu-prof`, its profile written when it stops
 * to DIR/<n>-<bundle>-<round>/, n the variant's place among the arguments (measure one
 * scenario a run to profile it alone).
 * `create_webhook` is `create` with one enabled endpoint posting to a local receiver
 * (bench/webhook-receiver.mjs), made before its warm-up and removed with its queue after.
 * A variant named for a script of bench/ceilings/ (`bare-fastify-pg-limits.mjs:REDIS_URL=…`)
 * is that ceiling, started on the same database, workspace and pool size as a bundle would
 * be, so a floor takes its turn in the same rounds (it answers only the routes it has).
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args.splice(at, 2)[1]!;
};
const SCENARIOS = option('scenarios', 'get_one,page_100,key,create').split(',');
const ROUNDS = Number(option('rounds', '5'));
const VARIANTS = args;
const CUSTOMERS = Number(process.env.AB_CUSTOMERS ?? 100_000);
const SECONDS = Number(process.env.AB_SECONDS ?? 8);
const WARMUP = Number(process.env.AB_WARMUP ?? 2);
const CONNECTIONS = Number(process.env.AB_CONNECTIONS ?? 32);
const DB = process.env.AB_DB ?? join(ROOT, 'dist/ab/ab.sqlite');
/** A floor's pool: the API's, as PG_POOL_SIZE sets it for the bundles too (their environment is this one's). */
const POOL_SIZE = String(loadConfig({ PG_POOL_SIZE: process.env.PG_POOL_SIZE }).pgPoolSize);

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Seeded {
  secret: string;
  ids: string[];
  workspaceId: string;
}

const POSTGRES = isPostgresUrl(DB);
/** PostgreSQL: the seeded database's name, and the copy each measurement runs on. */
const PG_BASE = POSTGRES ? new URL(DB).pathname.slice(1) : '';
const PG_RUN = `${PG_BASE}_run`;
/** The PostgreSQL server AB_DB is on (its URL without the database). */
const PG_SERVER = DB.replace(/\/[^/]*$/, '');
const RUN_DB = POSTGRES ? `${PG_SERVER}/${PG_RUN}` : DB;

async function seed(): Promise<Seeded> {
  const meta = POSTGRES ? join(ROOT, `dist/ab/${PG_BASE}.json`) : `${DB}.json`;
  if (POSTGRES) {
    const exists = (await pgAdmin(PG_SERVER, `select 1 from pg_database where datname = '${PG_BASE}'`)).rowCount === 1;
    if (exists && existsSync(meta)) return JSON.parse(readFileSync(meta, 'utf8'));
    await pgAdmin(PG_SERVER, `drop database if exists ${PG_BASE} with (force)`);
    await pgAdmin(PG_SERVER, `create database ${PG_BASE}`);
  } else {
    if (existsSync(DB) && existsSync(meta)) return JSON.parse(readFileSync(meta, 'utf8'));
    for (const f of [DB, `${DB}-wal`, `${DB}-shm`]) rmSync(f, { force: true });
  }
  log(`seeding ${CUSTOMERS} customers in ${DB}…`);
  const { secret, ids, workspaceId } = await seedBench(DB, 'AB', CUSTOMERS);
  const out = { secret, ids, workspaceId };
  writeFileSync(meta, JSON.stringify(out));
  return out;
}

function scenario(name: string, url: string, headers: Record<string, string>, ids: string[]): autocannon.Options {
  const json = { ...headers, 'content-type': 'application/json' };
  const randomId = () => ids[Math.floor(Math.random() * ids.length)]!;
  switch (name) {
    case 'get_one':
      return { url, headers, requests: [{ setupRequest: (r) => ({ ...r, path: `/customers/${randomId()}` }) }] };
    case 'page_100':
      return { url: `${url}/customers?limit=100`, headers };
    case 'key':
      return { url: `${url}/key`, headers };
    case 'health':
      return { url: `${url}/health` };
    case 'not_allowed':
      return { url: `${url}/customers`, method: 'PUT', headers };
    case 'not_found':
      return { url: `${url}/nowhere/at/all`, headers };
    case 'create':
    case 'create_webhook':
      return {
        url: `${url}/customers`,
        method: 'POST',
        headers: { ...json, 'idempotency-key': 'ab-[<id>]' },
        body: JSON.stringify({ first_name: 'AB', email: 'ab-[<id>]@example.com' }),
        idReplacement: true,
      };
    case 'update':
      return {
        url,
        method: 'PATCH',
        headers: json,
        requests: [
          {
            setupRequest: (r) => ({
              ...r,
              path: `/customers/${randomId()}`,
              headers: { ...json, 'if-match': '*' },
              body: JSON.stringify({ nickname: `ab ${Math.random()}` }),
            }),
          },
        ],
      };
    default:
      throw new Error(`unknown scenario ${name}`);
  }
}

interface Measure {
  variant: string;
  scenario: string;
  round: number;
  rps: number;
  p50: number;
  p99: number;
  cpu_us: number;
  /** PostgreSQL: the CPU of every process named postgres (the server's, whichever database). */
  pg_cpu_us?: number;
  non2xx: number;
  /** The server's peak RSS so far (VmHWM), in MiB: a round's scenarios share one server, so measure one to see its own. */
  peak_rss_mib: number;
  /** create_webhook: what became of the endpoint's deliveries by the end of the load. */
  deliveries?: Awaited<ReturnType<typeof retireEndpoint>>;
}

let receiver: Child | undefined;

async function receiverUrl(): Promise<string> {
  receiver ??= await startChild(['bench/webhook-receiver.mjs'], {});
  return `${receiver.url}/hooks`;
}

/** `BUNDLE:K=V,K=V`: the bundle in dist/ab/, run with settings of its own (tracing on, say). */
function parseVariant(variant: string): { bundle: string; settings: Record<string, string> } {
  const colon = variant.indexOf(':');
  if (colon === -1) return { bundle: variant, settings: {} };
  const pairs = variant
    .slice(colon + 1)
    .split(',')
    .filter(Boolean);
  return {
    bundle: variant.slice(0, colon),
    settings: Object.fromEntries(
      pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
    ),
  };
}

async function measure(variant: string, round: number, { secret, ids, workspaceId }: Seeded): Promise<Measure[]> {
  const env = {
    DATABASE_URL: RUN_DB,
    DEMO: 'off',
    LOG_LEVEL: 'warn',
    BASE_URL: '',
    WEBHOOK_ALLOW_HTTP: 'on',
    WEBHOOK_ALLOW_PRIVATE: 'on',
  };
  const { bundle, settings } = parseVariant(variant);
  // Named by the variant's place on the command line: two may share a bundle, and settings hold slashes.
  const profileDir = `${VARIANTS.indexOf(variant) + 1}-${bundle}-${round}`;
  const profile = process.env.AB_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${join(process.env.AB_CPU_PROF, profileDir)}`]
    : [];
  const child = bundle.endsWith('.mjs')
    ? await startChild([...profile, join('bench/ceilings', bundle)], {
        DATABASE_URL: RUN_DB,
        DB_PATH: RUN_DB,
        WORKSPACE_ID: workspaceId,
        POOL_SIZE,
        ...settings,
      })
    : (await startUntilReady([...profile, join('dist/ab', bundle, 'server.js')], { ...env, ...settings })).child;
  const out: Measure[] = [];
  try {
    const headers = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
    for (const name of SCENARIOS) {
      const options = { connections: CONNECTIONS, ...scenario(name, child.url, headers, ids) };
      const endpoint = name === 'create_webhook' ? await addEndpoint(RUN_DB, workspaceId, await receiverUrl()) : null;
      if (WARMUP > 0) await autocannon({ ...options, duration: WARMUP });
      const spent = cpuSince(child.process.pid!);
      const spentByPostgres = POSTGRES ? cpuSince('postgres') : null;
      const r = await autocannon({ ...options, duration: SECONDS });
      const ticks = spent();
      const pgTicks = spentByPostgres?.();
      const deliveries = endpoint ? await retireEndpoint(RUN_DB, workspaceId, endpoint) : undefined;
      const m: Measure = {
        variant,
        scenario: name,
        round,
        rps: Math.round(r.requests.average),
        p50: r.latency.p50,
        p99: r.latency.p99,
        cpu_us: Math.round((ticks * TICK_US) / Math.max(1, r.requests.total)),
        ...(pgTicks === undefined
          ? {}
          : { pg_cpu_us: Math.round((pgTicks * TICK_US) / Math.max(1, r.requests.total)) }),
        non2xx: r.non2xx + r.errors,
        peak_rss_mib: child.peakRssMiB(),
        ...(deliveries ? { deliveries } : {}),
      };
      console.log(JSON.stringify(m));
      out.push(m);
    }
  } finally {
    await child.stop();
  }
  return out;
}

async function main() {
  if (VARIANTS.length === 0) throw new Error('name the bundles to compare: dist/ab/<name>/server.js');
  const seeded = await seed();
  // The file every round starts from, so a variant measured later finds the same data.
  const template = `${DB}.template`;
  if (!POSTGRES && !existsSync(template)) copyFileSync(DB, template);
  const all: Measure[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate the order too, so neither bundle always runs first in a round.
    const order = round % 2 === 1 ? VARIANTS : [...VARIANTS].reverse();
    for (const variant of order) {
      if (POSTGRES) {
        await pgAdmin(PG_SERVER, `drop database if exists ${PG_RUN} with (force)`);
        await pgAdmin(PG_SERVER, `create database ${PG_RUN} template ${PG_BASE}`);
      } else {
        for (const f of [`${DB}-wal`, `${DB}-shm`]) rmSync(f, { force: true });
        const own = `${DB}.${parseVariant(variant).bundle}.template`;
        copyFileSync(existsSync(own) ? own : template, DB);
      }
      all.push(...(await measure(variant, round, seeded)));
    }
  }
  log('\nranges over rounds (min–max, median):');
  for (const name of SCENARIOS) {
    for (const variant of VARIANTS) {
      const ms = all.filter((m) => m.scenario === name && m.variant === variant);
      const range = (k: 'rps' | 'cpu_us' | 'pg_cpu_us' | 'p99') => {
        const xs = ms.map((m) => m[k] ?? 0).sort((a, b) => a - b);
        return `${xs[0]}–${xs[xs.length - 1]} (${xs[Math.floor(xs.length / 2)]})`;
      };
      log(
        `  ${name.padEnd(12)} ${variant.padEnd(14)} cpu µs/req ${range('cpu_us')}${POSTGRES ? `  postgres ${range('pg_cpu_us')}` : ''}  rps ${range('rps')}  p99 ${range('p99')}`,
      );
    }
  }
  if (SCENARIOS.includes('create') && SCENARIOS.includes('create_webhook')) {
    log('create_webhook over create, by round (rps), and deliveries made:');
    for (const variant of VARIANTS) {
      const of = (scenario: string, round: number) =>
        all.find((m) => m.variant === variant && m.round === round && m.scenario === scenario);
      const rounds = Array.from({ length: ROUNDS }, (_, i) => i + 1);
      const ratios = rounds.map((r) => (of('create_webhook', r)!.rps / of('create', r)!.rps).toFixed(3));
      const made = rounds.map((r) => of('create_webhook', r)!.deliveries?.delivered ?? 0);
      log(`  ${variant.padEnd(14)} ${ratios.join(', ')}  delivered ${made.join(', ')}`);
    }
  }
}

try {
  await main();
} finally {
  await receiver?.stop();
}
