import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A redis-server of this test's own, on its own port, so stopping it does not disturb the
 * shared one on 6379. Nothing is saved to disk.
 */
export class PrivateRedis {
  private readonly dir = mkdtempSync(join(tmpdir(), 'venue-redis-'));
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  private cli(...args: string[]): string {
    return execFileSync('redis-cli', ['-p', String(this.port), ...args], {
      encoding: 'utf8',
      timeout: 5_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  }

  async start(): Promise<void> {
    execFileSync('redis-server', [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'yes',
      '--dir',
      this.dir,
      '--pidfile',
      join(this.dir, 'redis.pid'),
      '--logfile',
      join(this.dir, 'redis.log'),
    ]);
    for (let i = 0; i < 100; i++) {
      try {
        if (this.cli('ping') === 'PONG') return;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    throw new Error(`private redis on ${this.port} did not start`);
  }

  /** Shuts it down and waits until the port is closed. */
  async stop(): Promise<void> {
    try {
      this.cli('shutdown', 'nosave');
    } catch {
      // redis-cli reports the dropped connection of a shutdown as an error
    }
    for (let i = 0; i < 100; i++) {
      try {
        this.cli('ping');
      } catch {
        return;
      }
      await sleep(50);
    }
    throw new Error(`private redis on ${this.port} did not stop`);
  }

  private pid(): number {
    return Number(readFileSync(join(this.dir, 'redis.pid'), 'utf8'));
  }

  /**
   * SIGSTOP: the server keeps its connections and its data but answers nothing, as one that
   * hangs does; what clients send meanwhile runs once it is thawed.
   */
  freeze(): void {
    process.kill(this.pid(), 'SIGSTOP');
  }

  thaw(): void {
    process.kill(this.pid(), 'SIGCONT');
  }

  /** For afterAll: stop whatever runs, by the pid it wrote, wait for it, remove its directory. */
  async dispose(): Promise<void> {
    let pid = 0;
    try {
      pid = this.pid();
      if (pid > 0) {
        process.kill(pid, 'SIGCONT'); // a frozen server would not act on SIGTERM
        process.kill(pid, 'SIGTERM');
      }
    } catch {
      // already stopped
    }
    // A redis-server still exiting writes its log and removes its pidfile: removing the
    // directory under it fails with ENOTEMPTY, so wait for the process to be gone first.
    for (let i = 0; pid > 0 && i < 100; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await sleep(50);
    }
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}
