/** `npm run bench`'s options and settings (bench/README.md "Options"), read once and checked. */
const argv = process.argv;
const after = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);

const quick = argv.includes('--quick');
const database = after('--database') ?? 'sqlite';
if (database !== 'sqlite' && database !== 'postgres') throw new Error(`--database sqlite|postgres, got ${database}`);
const workers = Number(after('--workers') ?? 1);
if (!Number.isInteger(workers) || workers < 1)
  throw new Error('--workers N: a whole number of server processes, 1 or more');
if (workers > 1 && database !== 'postgres' && !process.env.BENCH_DATABASE_URL?.startsWith('postgres')) {
  throw new Error('--workers N needs --database postgres: SQLite has one writer (serve refuses several workers)');
}
const tracing = argv.includes('--tracing') ? Number(after('--tracing')) : null;
if (tracing !== null && !(tracing >= 0 && tracing <= 1))
  throw new Error('--tracing RATIO: a sampling ratio from 0 to 1');
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`BENCH_ROUNDS: a whole number, 1 or more, got ${rounds}`);

export const SETTINGS = Object.freeze({
  database: database as 'sqlite' | 'postgres',
  /** A database to seed (BENCH_DATABASE_URL); otherwise a fresh SQLite file or PostgreSQL database. */
  databaseUrl: process.env.BENCH_DATABASE_URL,
  pgServer: process.env.BENCH_PG_SERVER ?? 'postgres://postgres@127.0.0.1:5432',
  workers,
  webhook: argv.includes('--webhook'),
  tracing,
  json: argv.includes('--json'),
  customers: Number(process.env.BENCH_CUSTOMERS ?? (quick ? 100_000 : 1_000_000)),
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  warmup: Number(process.env.BENCH_WARMUP ?? 3),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  updatePool: Number(process.env.BENCH_UPDATE_POOL ?? 2048),
  rounds,
  /** Starts of the API timed for start_ms; the last one stays up for the scenarios. */
  coldStarts: 3,
  /** A list page's size (page_100, sync). */
  page: 100,
});

export const log = (line: string) => process.stderr.write(`${line}\n`);
