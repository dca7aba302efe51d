import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  url: string;
  process: ChildProcess;
  /** Resident memory of the process now, in MiB (Linux). */
  rssMiB(): number;
  /** The most resident memory the process has held so far (VmHWM), in MiB (Linux). */
  peakRssMiB(): number;
  stop(): Promise<void>;
}

function statusMiB(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

function wrap(child: ChildProcess, url: string): Child {
  return {
    url,
    process: child,
    rssMiB: () => statusMiB(child.pid, 'VmRSS'),
    peakRssMiB: () => statusMiB(child.pid, 'VmHWM'),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function spawnNode(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return { child, output: () => out };
}

/** What every helper process (a ceiling, a receiver, the collector) prints once it listens. */
const LISTENING = /listening at (http:\/\/\S+)/;

/**
 * Starts `node ARGS` and waits for the `http://…` address it prints (`listening at URL`).
 * TypeScript files need `--import tsx` in `args`; the ceilings are plain JavaScript and start without it.
 */
export async function startChild(args: string[], env: Record<string, string>): Promise<Child> {
  const { child, output } = spawnNode(args, env);
  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while (!url) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited:\n${output()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not listen:\n${output()}`);
    }
    url = LISTENING.exec(output())?.[1];
    if (!url) await new Promise((r) => setTimeout(r, 50));
  }
  return wrap(child, url);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One GET /ready: its status code, or null when nothing answers yet. */
export function ready(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/ready', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.once('error', () => resolve(null));
    req.end();
  });
}

/**
 * Starts `node ARGS` on a free port (PORT, HOST=127.0.0.1) and polls GET /ready every
 * 5 ms until it answers 200: the process, and the wall time from spawn to that 200.
 */
export async function startUntilReady(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<{ child: Child; readyMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const { child, output } = spawnNode(args, { HOST: '127.0.0.1', PORT: String(port), ...env });
  const handle = wrap(child, `http://127.0.0.1:${port}`);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited before it was ready:\n${output()}`);
    if (performance.now() - started > timeoutMs) {
      await handle.stop();
      throw new Error(`${args.join(' ')} was not ready in ${timeoutMs} ms:\n${output()}`);
    }
    if ((await ready(port)) === 200) return { child: handle, readyMs: performance.now() - started };
    await new Promise((r) => setTimeout(r, 5));
  }
}
