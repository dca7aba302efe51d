import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Copies the WAL back into the database file on a thread of its own: SQLite would otherwise
 * checkpoint inside the COMMIT that passes `wal_autocheckpoint` pages, fsyncing the database
 * file while the synchronous driver holds up every request (bench/README.md has the figures).
 * The worker's PASSIVE checkpoints take no lock a reader or writer waits for.
 *
 * A passive checkpoint cannot finish while the server holds a transaction open, so the
 * server's connection keeps SQLite's own checkpoint as a backstop at `BACKSTOP_PAGES`, and
 * goes back to SQLite's 1,000 pages should the worker fail.
 */
export const BACKSTOP_PAGES = 4_000;
export const SQLITE_DEFAULT_PAGES = 1_000;
const INTERVAL_MS = 100;

// Run as a script (eval), so the bundle needs no file of its own for the worker; the driver
// is loaded from where this module resolves it.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('cache_size = 64');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  // A busy or failed pass is retried with the next writes; the backstop bounds the WAL meanwhile.
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {}
  parentPort.postMessage('done');
});
`;

export class BackgroundCheckpointer {
  /** Started by the first write: a server that only reads never pays for the thread. */
  private worker: Worker | null = null;
  private exited: Promise<unknown> = Promise.resolve();
  private running = false;
  private wanted = false;
  private timer: NodeJS.Timeout | null = null;
  private failed = false;

  constructor(
    private readonly path: string,
    /** Called once if the worker fails: the caller restores SQLite's own checkpoints. */
    private readonly onFailure: (err: unknown) => void,
  ) {}

  /** Something was committed: a checkpoint runs within INTERVAL_MS, one at a time. */
  written(): void {
    if (this.failed) return;
    this.wanted = true;
    if (!this.running) this.schedule();
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.failed = true;
    this.worker?.postMessage('close');
    await this.exited;
  }

  private spawn(): Worker {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { path: this.path, driver },
      // It runs a pragma now and then: a small heap, not a server's.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
    });
    // Never what keeps a process alive: the storage's close ends it.
    worker.unref();
    this.exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.on('message', () => {
      this.running = false;
      if (this.wanted) this.schedule();
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`the checkpoint worker exited with code ${code}`));
    });
    return worker;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.start();
    }, INTERVAL_MS);
    this.timer.unref();
  }

  private start(): void {
    if (this.failed || this.running) return;
    this.wanted = false;
    this.running = true;
    this.worker ??= this.spawn();
    this.worker.postMessage('checkpoint');
  }

  private fail(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.running = false;
    this.onFailure(err);
  }
}
