import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../limits/private-redis.ts';

const run = promisify(execFile);

/** The newest installed server's programs (Debian's layout), or PG_BIN when set. */
function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('no PostgreSQL server programs found: set PG_BIN');
  return join(root, newest, 'bin');
}

/** initdb refuses to run as root: as root, run the server's programs as the postgres user. */
const asRoot = process.getuid?.() === 0;

function command(program: string, args: string[]): [string, string[]] {
  const path = join(binDir(), program);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

/**
 * A PostgreSQL cluster of this test's own, in a temporary directory on a free port, so a
 * test can stop it, start it and terminate its backends without disturbing the shared one
 * (127.0.0.1:5432) or other test files. Tuned for a throwaway: no fsync.
 */
export class PgCluster {
  private running = false;
  private readonly onExit = () => this.destroySync();

  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  /** initdb into a new directory and start it. */
  static async create(): Promise<PgCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'venue-pg-'));
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
      chownSync(dir, uid, gid);
    }
    await run(...command('initdb', ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres', '-N', '-E', 'UTF8']), {
      env: { ...process.env, LC_ALL: 'C' },
    });
    const cluster = new PgCluster(dir, await freePort());
    process.once('exit', cluster.onExit);
    await cluster.start();
    return cluster;
  }

  /** A connection URL for a database of this cluster. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  private ctl(...args: string[]): [string, string[]] {
    return command('pg_ctl', ['-D', join(this.dir, 'data'), ...args]);
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
    await run(...this.ctl('-o', options, '-l', join(this.dir, 'server.log'), '-w', '-t', '60', 'start'));
    this.running = true;
  }

  /**
   * Stops the server: `fast` terminates every backend (57P01) and shuts down cleanly,
   * `immediate` as a crash would. Waits until it is gone.
   */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await run(...this.ctl('-m', mode, '-w', '-t', '60', 'stop'));
    this.running = false;
  }

  /** pg_terminate_backend of every other connection to `database`; answers how many. */
  async terminateBackends(database: string): Promise<number> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      const res = await client.query(
        'select count(*) filter (where pg_terminate_backend(pid)) as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [database],
      );
      return Number(res.rows[0].n);
    } finally {
      await client.end();
    }
  }

  /** Creates a database and answers its URL. */
  async createDatabase(name: string): Promise<string> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      await client.query(`create database ${name}`);
    } finally {
      await client.end();
    }
    return this.url(name);
  }

  /** Stops the server if it runs and removes its directory. */
  async destroy(): Promise<void> {
    process.removeListener('exit', this.onExit);
    if (this.running) await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** For a test process that exits without its afterAll: leave no server behind. */
  private destroySync(): void {
    try {
      if (this.running) execFileSync(...this.ctl('-m', 'immediate', '-w', 'stop'), { stdio: 'ignore' });
    } catch {
      // already stopped
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
