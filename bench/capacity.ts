import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './processes.ts';

/**
 * docs/operations.md "Capacity", written from the CPU a request costs each tier in the newest
 * kept PostgreSQL run with Redis limits (bench/results/<date>[-<n>]-postgres.json, the nth
 * kept that day). `node --import
 * tsx bench/capacity.ts` rewrites the section; test/docs/capacity.test.ts fails when it and
 * the run disagree, so the figures are never typed by hand.
 */
export const RESULTS = join(ROOT, 'bench/results');
export const DOC = join(ROOT, 'docs/operations.md');
const BEGIN = '<!-- capacity: written by bench/capacity.ts; edit that, not this -->';
const END = '<!-- capacity: end -->';

/** A workspace at its full limit: 1,200 requests a minute (SPEC "Limits"). */
const WORKSPACE_RPS = 1_200 / 60;
const API_CORES = [1, 2, 4, 8, 16, 32];
const PRIMARY_CORES = [4, 16];
const TIERS = ['api', 'postgres', 'redis'] as const;
type Tier = (typeof TIERS)[number];
const TIER_NAMES: Record<Tier, string> = { api: 'API', postgres: 'PostgreSQL', redis: 'Redis' };

interface Scenario {
  name: string;
  rps: number;
  cpu_us_per_request?: Partial<Record<Tier, number>>;
}
interface Run {
  engine: string;
  customers: number;
  redis?: unknown;
  scenarios: Scenario[];
}

/** What one request of a scenario cost each tier, as the run has it. */
const costsOf = (run: Run, scenario: string) => run.scenarios.find((s) => s.name === scenario)?.cpu_us_per_request;

/** The newest kept PostgreSQL run whose reads and writes carry every tier's CPU. */
export function latestRun(): { file: string; run: Run } {
  // Newest first: by date, then by a day's number (none is the day's first).
  const order = (f: string) =>
    f.replace(/^(\d{4}-\d{2}-\d{2})(?:-(\d+))?-.*$/, (_, d, n) => `${d}-${(n ?? '1').padStart(3, '0')}`);
  const files = readdirSync(RESULTS)
    .filter((f) => /^\d{4}-\d{2}-\d{2}(-\d+)?-postgres\.json$/.test(f))
    .sort((a, b) => order(b).localeCompare(order(a)));
  for (const file of files) {
    const run = JSON.parse(readFileSync(join(RESULTS, file), 'utf8')) as Run;
    const costs = ['get_one', 'create'].map((n) => costsOf(run, n));
    if (run.redis && costs.every((c) => c && TIERS.every((t) => (c[t] ?? 0) > 0))) return { file, run };
  }
  throw new Error(`no run in ${RESULTS} has get_one's and create's CPU for the API, PostgreSQL and Redis`);
}

const whole = (n: number) => Math.floor(n).toLocaleString('en-US');

/** Requests a second each tier carries on one core. */
function perCore(run: Run, scenario: string): Record<Tier, number> {
  const cpu = costsOf(run, scenario)!;
  return Object.fromEntries(TIERS.map((t) => [t, 1_000_000 / cpu[t]!])) as Record<Tier, number>;
}

/** What a fleet of `api` API cores on a primary of `primary` cores and one Redis serves, and which tier stops it first. */
function fleet(rates: Record<Tier, number>, api: number, primary: number): string {
  const carried: [Tier, number][] = [
    ['api', api * rates.api],
    ['postgres', primary * rates.postgres],
    ['redis', rates.redis],
  ];
  const [bound, rps] = carried.reduce((a, b) => (b[1] < a[1] ? b : a));
  return `${whole(rps / WORKSPACE_RPS)} (${TIER_NAMES[bound]})`;
}

export function renderCapacity(file: string, run: Run): string {
  const reads = perCore(run, 'get_one');
  const writes = perCore(run, 'create');
  const cpu = (s: string, t: Tier) => costsOf(run, s)![t]!;
  const lines = [
    BEGIN,
    '',
    `From [bench/results/${file}](../bench/results/${file}), the official bench on`,
    `PostgreSQL with Redis limits (${whole(run.customers)} customers): the CPU one request costs each tier,`,
    'read from `/proc`, and what one core of it carries.',
    '',
    '| | API | PostgreSQL | Redis |',
    '|---|---|---|---|',
    `| A read (\`GET /customers/{id}\`): CPU a request | ${TIERS.map((t) => `${whole(cpu('get_one', t))} µs`).join(' | ')} |`,
    `| Reads a second one core carries | ${TIERS.map((t) => whole(reads[t])).join(' | ')} |`,
    `| A write (\`POST /customers\`): CPU a request | ${TIERS.map((t) => `${whole(cpu('create', t))} µs`).join(' | ')} |`,
    `| Writes a second one core carries | ${TIERS.map((t) => whole(writes[t])).join(' | ')} |`,
    '',
    'A workspace at its full limit sends 1,200 requests a minute, 20 a second. A fleet of N API',
    'cores (a worker each) on one PostgreSQL primary of P cores and one Redis (one core: Redis',
    'runs commands on one thread) serves the least of N × the API core, P × the PostgreSQL core',
    'and the Redis core. Workspaces at their full limit, all reads or all writes, and in',
    'parentheses the tier that bounds it first:',
    '',
    `| API cores | ${PRIMARY_CORES.map((p) => `reads, ${p}-core primary | writes, ${p}-core primary`).join(' | ')} |`,
    `|---|${PRIMARY_CORES.map(() => '---|---').join('|')}|`,
    ...API_CORES.map(
      (n) => `| ${n} | ${PRIMARY_CORES.map((p) => `${fleet(reads, n, p)} | ${fleet(writes, n, p)}`).join(' | ')} |`,
    ),
    '',
    `One PostgreSQL core keeps up with ${(reads.postgres / reads.api).toFixed(1)} API cores of reads and ${(writes.postgres / writes.api).toFixed(1)} of writes;`,
    `one Redis with ${(reads.redis / reads.api).toFixed(1)} API cores of reads and ${(writes.redis / writes.api).toFixed(1)} of writes. Adding API cores pays`,
    'until the primary or Redis is the bound; past the primary, a larger one; past Redis, nothing',
    'here (the server uses one Redis, not a cluster). The bench runs every tier and its load on',
    "one machine of 2 cores, so each figure counts the others' contention: tiers on machines of",
    'their own do better, and a database larger than its memory does worse. Run the bench on',
    'your own machines and `node --import tsx bench/capacity.ts` to write this section from it.',
    '',
    END,
  ];
  return lines.join('\n');
}

/** The operations guide with its Capacity section written from `section`. */
export function withCapacity(doc: string, section: string): string {
  const from = doc.indexOf(BEGIN);
  const to = doc.indexOf(END);
  if (from === -1 || to === -1) throw new Error(`${DOC} has no capacity section between its markers`);
  return doc.slice(0, from) + section + doc.slice(to + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { file, run } = latestRun();
  writeFileSync(DOC, withCapacity(readFileSync(DOC, 'utf8'), renderCapacity(file, run)));
  process.stdout.write(`docs/operations.md "Capacity" written from bench/results/${file}\n`);
}
