import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { openStorage } from '../src/db/index.ts';
import { newId } from '../src/lib/ids.ts';
import { ROOT } from './processes.ts';

/**
 * `node --import tsx bench/commit.ts [--rounds 4]`: what SQLite's checkpoints cost the event loop under
 * a load of small write transactions, with the checkpoint worker (src/db/dialects/
 * sqlite-checkpointer.ts) and without it (SQLite's own, inside the COMMIT), in turns. Each
 * run starts from a copy of the A/B bench's seeded file (bench/ab.ts) and, for COMMIT_SECONDS,
 * keeps 32 transactions in flight, each writing one customer and one idempotency row, as a
 * create does. better-sqlite3 runs a COMMIT on the event loop, so a checkpoint inside it
 * holds up every request of the process: reported per run are writes a second, each write's
 * time until durable (p50, p99), and how long each group's COMMIT held the event loop (mean,
 * p99, max), timed around the statement itself, which varies less with the machine's load.
 */
const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const ROUNDS = at === -1 ? 4 : Number(args[at + 1]);
const SECONDS = Number(process.env.COMMIT_SECONDS ?? 10);
const IN_FLIGHT = 32;
const TEMPLATE = process.env.AB_DB ? `${process.env.AB_DB}.template` : join(ROOT, 'dist/ab/ab.sqlite.template');
const FILE = join(ROOT, 'dist/ab/commit.sqlite');

/** Every COMMIT statement's run, timed: the event loop's time inside it. */
const commits: number[] = [];
const prepare = SQLite.prototype.prepare;
SQLite.prototype.prepare = function (this: SQLite.Database, source: string) {
  const statement = prepare.call(this, source) as SQLite.Statement;
  if (source.trim().toLowerCase() !== 'commit') return statement;
  const run = statement.run.bind(statement);
  statement.run = (...params: unknown[]) => {
    const t = performance.now();
    try {
      return run(...params);
    } finally {
      commits.push(performance.now() - t);
    }
  };
  return statement;
} as typeof prepare;

async function run(worker: boolean) {
  for (const f of [FILE, `${FILE}-wal`, `${FILE}-shm`]) rmSync(f, { force: true });
  copyFileSync(TEMPLATE, FILE);
  const storage = await openStorage(FILE, { sqliteBackgroundCheckpoint: worker });
  const { db } = storage;
  const { workspace_id } = await db.selectFrom('workspaces').select('id as workspace_id').executeTakeFirstOrThrow();
  const times: number[] = [];
  commits.length = 0;
  const write = async () => {
    const t = performance.now();
    const now = Date.now();
    await storage.write(async (tx) => {
      const id = newId('customer');
      await tx
        .insertInto('customers')
        .values({
          id,
          workspace_id,
          livemode: 1,
          first_name: 'Commit',
          email: `${id}@example.com`,
          marketing_consent: 0,
          member: 0,
          version: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await tx
        .insertInto('idempotency_keys')
        .values({
          key_id: 'key_commit',
          idempotency_key: id,
          workspace_id,
          fingerprint: 'f',
          status_code: 201,
          content_type: 'application/json',
          headers: '{}',
          body: '{}',
          request_id: id,
          created_at: now,
        })
        .execute();
    });
    times.push(performance.now() - t);
  };
  const started = performance.now();
  const end = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < end) await write();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // The checkpoint worker is unref'd: keep this process up until it has closed.
  const alive = setInterval(() => undefined, 1000);
  await storage.close();
  clearInterval(alive);
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const q = (xs: number[], at: number) => r1([...xs].sort((a, b) => a - b)[Math.floor(at * (xs.length - 1))]!);
  return {
    checkpoints: worker ? 'worker' : 'inline',
    writes_per_s: Math.round(times.length / seconds),
    p50_ms: q(times, 0.5),
    p99_ms: q(times, 0.99),
    commits: commits.length,
    commit_mean_ms: r1(commits.reduce((a, b) => a + b, 0) / commits.length),
    commit_p99_ms: q(commits, 0.99),
    commit_max_ms: r1(Math.max(...commits)),
  };
}

if (!existsSync(TEMPLATE)) throw new Error(`no seeded file at ${TEMPLATE}: run bench/ab.ts first`);
for (let round = 1; round <= ROUNDS; round++) {
  for (const worker of round % 2 === 1 ? [true, false] : [false, true]) {
    console.log(JSON.stringify({ round, ...(await run(worker)) }));
  }
}
for (const f of [FILE, `${FILE}-wal`, `${FILE}-shm`]) rmSync(f, { force: true });
