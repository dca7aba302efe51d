import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Copies the WAL back into the database file on a thread of its own, so the server's event
 * loop does not stop for it.
 *
 * SQLite checkpoints inside the COMMIT that takes the WAL past `wal_autocheckpoint` pages:
 * it writes those pages into the database file and fsyncs it. better-sqlite3 is synchronous,
 * so every request of the process waits meanwhile; under a load of creates COMMIT took a
 * third of the event loop's time (3.3 ms a group with checkpoints, 1.2 ms without any
 * fsync). Here a worker with its own connection runs PASSIVE checkpoints a few times a
 * second while writes come in: they take no lock a writer or reader waits for (SQLite's
 * WAL design), and copy only what no open transaction still needs.
 *
 * A passive checkpoint cannot finish while the server's connection holds a transaction open,
 * so the WAL could not start over under a steady load; the server's connection keeps its own
 * automatic checkpoint as the backstop, at a larger size (`BACKSTOP_PAGES`), where it finds
 * most pages already copied. Past that size every COMMIT of the server's connection tries a
 * checkpoint (and its fsyncs) until the WAL starts over, so many small write transactions
 * in a row pay for it: measured when the activity flush was split into small transactions
 * (a walk's p99 went from 8 to over 90 ms), and taken back. Should the worker fail, the
 * server's connection goes back to SQLite's own rhythm (1,000 pages) and the server runs on.
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
