import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ProcessOptions {
  /**
   * Start it under `ulimit -S -f 0` (RLIMIT_FSIZE): no file it writes may grow, so SQLite
   * cannot append to its WAL, as on a full disk, without a mount or privileges (Node ignores
   * SIGXFSZ, so the write fails with EFBIG). Only the soft limit: `prlimit --fsize` lifts it.
   */
  fullDisk?: boolean;
  /** What node runs in place of the bundle's server (or the CLI's bin): a script and its arguments. */
  entry?: string[];
}

/** Node running `script`, directly or under the file-size limit. */
function command(script: string[], options: ProcessOptions): [string, string[]] {
  if (!options.fullDisk) return [process.execPath, script];
  return ['/bin/sh', ['-c', 'ulimit -S -f 0 && exec "$0" "$@"', process.execPath, ...script]];
}

/** A real `node dist/bundle/server.js` process, as `npm start` runs it (vitest's globalSetup builds it). */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything it printed, for a failing test's message. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not gone after `graceMs`. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Starts a server on a free port and waits (bounded) until it answers /health. */
export async function startServer(
  env: Record<string, string>,
  timeoutMs = 20_000,
  options: ProcessOptions = {},
): Promise<ServerProcess> {
  const child = spawn(...command(options.entry ?? ['dist/bundle/server.js'], options), {
    cwd: ROOT,
    // vitest puts Vite's BASE_URL=/ into process.env; a real shell has none.
    env: { ...process.env, BASE_URL: '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));

  const deadline = Date.now() + timeoutMs;
  let url: string | null = null;
  while (!url) {
    if (gone) throw new Error(`server exited before listening:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not listen within ${timeoutMs} ms:\n${out}`);
    }
    url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? null;
    if (!url) await new Promise((r) => setTimeout(r, 50));
  }
  const stop = async (graceMs = 10_000) => {
    if (!gone) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }
    return exited;
  };
  return { url, child, output: () => out, exited, stop };
}

/** Runs the operator CLI (`bin/venue-api.js`) to completion. */
export function runCliProcess(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
  options: ProcessOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(...command([...(options.entry ?? ['bin/venue-api.js']), ...args], options), {
      cwd: ROOT,
      env: { ...process.env, BASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`venue-api ${args.join(' ')} did not finish in ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `venue-api … --json` that must succeed: its JSON answer (a failure throws with what it printed). */
export async function cliJson(env: Record<string, string>, ...args: string[]): Promise<any> {
  const res = await runCliProcess([...args, '--json'], env, 120_000);
  if (res.code !== 0) throw new Error(`venue-api ${args.join(' ')} failed (${res.code}):\n${res.stdout}${res.stderr}`);
  return JSON.parse(res.stdout);
}
