import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuTicks, TICK_US } from './cpu.ts';
import { freePort, ready, ROOT } from './processes.ts';

/**
 * `npm run bench:start`: cold start, from spawning the process to the first 200 from
 * GET /ready, of (a) a bare Fastify 5 server (bench/ceilings/bare-fastify.mjs) and (b) the
 * compiled API (`node dist/bundle/server.js`) on a fresh, empty SQLite database with DEMO=off.
 * Each is started BENCH_RUNS times (7), alternating, after one unrecorded warm-up each;
 * prints the medians and their ratio (`--json`: one JSON line). Builds dist/ first.
 * On Linux it also reports the CPU time each process used until ready, which a busy
 * machine disturbs less than the wall time.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const POLL_MS = 5;
const TIMEOUT_MS = 60_000;
const JSON_OUT = process.argv.includes('--json');

interface Target {
  name: string;
  args: string[];
  env(dir: string): Record<string, string>;
}

const BARE: Target = { name: 'bare Fastify', args: ['bench/ceilings/bare-fastify.mjs'], env: () => ({}) };
const OURS: Target = {
  name: 'npm start (bundle)',
  args: ['dist/bundle/server.js'],
  env: (dir) => ({ DATABASE_URL: join(dir, 'venue.sqlite'), DEMO: 'off' }),
};

/** CPU time (user + system) a process has used so far, in ms; null off Linux. */
function cpuMs(pid: number | undefined): number | null {
  const ticks = cpuTicks(pid);
  return ticks === null ? null : (ticks * TICK_US) / 1000;
}

/** From spawn to the first 200 from /ready: wall time, and the CPU time the process used. */
async function coldStart(target: Target): Promise<{ wall: number; cpu: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), 'venue-start-'));
  const port = await freePort();
  let out = '';
  const started = performance.now();
  const child = spawn(process.execPath, target.args, {
    cwd: ROOT,
    env: { ...process.env, BASE_URL: '', HOST: '127.0.0.1', PORT: String(port), ...target.env(dir) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${target.name} exited before it was ready:\n${out}`);
      if (performance.now() - started > TIMEOUT_MS)
        throw new Error(`${target.name} was not ready in ${TIMEOUT_MS} ms:\n${out}`);
      if ((await ready(port)) === 200) return { wall: performance.now() - started, cpu: cpuMs(child.pid) };
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

// `npm run build`: tsc to dist/, then the bundle npm start runs.
const build = spawnSync('npm', ['run', '--silent', 'build'], {
  cwd: ROOT,
  stdio: JSON_OUT ? 'pipe' : 'inherit',
  encoding: 'utf8',
});
if (build.status !== 0 || !existsSync(join(ROOT, 'dist/bundle/server.js'))) {
  console.error(`npm run build failed:\n${build.stdout ?? ''}${build.stderr ?? ''}`);
  process.exit(1);
}

await coldStart(BARE);
await coldStart(OURS);
const wall: Record<'bare' | 'ours', number[]> = { bare: [], ours: [] };
const cpu: Record<'bare' | 'ours', number[]> = { bare: [], ours: [] };
for (let i = 0; i < RUNS; i++) {
  for (const [key, target] of [
    ['bare', BARE],
    ['ours', OURS],
  ] as const) {
    const run = await coldStart(target);
    wall[key].push(run.wall);
    if (run.cpu !== null) cpu[key].push(run.cpu);
  }
}
const round = (x: number) => Math.round(x * 10) / 10;
const ratio = median(wall.ours) / median(wall.bare);
const cpuRatio = cpu.ours.length === RUNS ? median(cpu.ours) / median(cpu.bare) : null;

if (JSON_OUT) {
  process.stdout.write(
    `${JSON.stringify({
      runs: RUNS,
      node: process.version,
      bare_ms: round(median(wall.bare)),
      ours_ms: round(median(wall.ours)),
      ratio: Math.round(ratio * 100) / 100,
      ...(cpuRatio === null
        ? {}
        : {
            bare_cpu_ms: round(median(cpu.bare)),
            ours_cpu_ms: round(median(cpu.ours)),
            cpu_ratio: Math.round(cpuRatio * 100) / 100,
          }),
      bare_runs_ms: wall.bare.map(round),
      ours_runs_ms: wall.ours.map(round),
    })}\n`,
  );
} else {
  const line = (name: string, key: 'bare' | 'ours') =>
    `${name.padEnd(22)} median ${round(median(wall[key])).toFixed(1).padStart(7)} ms` +
    (cpuRatio === null ? '' : `, CPU ${round(median(cpu[key])).toFixed(0).padStart(5)} ms`) +
    `   (runs: ${wall[key].map((x) => Math.round(x)).join(', ')})`;
  console.log(`Cold start to the first 200 from GET /ready, ${RUNS} runs each (Node ${process.version}):`);
  console.log(line(BARE.name, 'bare'));
  console.log(line(OURS.name, 'ours'));
  console.log(
    `ratio                  ${ratio.toFixed(2)}x wall (target: at most 2x)${cpuRatio === null ? '' : `, ${cpuRatio.toFixed(2)}x CPU`}`,
  );
}
