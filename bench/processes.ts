import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  url: string;
  process: ChildProcess;
  /** Resident memory of the process now, in MiB (Linux). */
  rssMiB(): number;
  stop(): Promise<void>;
}

/** Starts a node process and waits for the `http://…` address it prints. */
export async function startChild(args: string[], env: Record<string, string>, pattern: RegExp): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while (!url) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not listen:\n${out}`);
    }
    url = pattern.exec(out)?.[1];
    if (!url) await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    process: child,
    rssMiB: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
