import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

/**
 * `venue-api backup FILE`: a consistent copy of a SQLite database while a server writes to
 * it, by SQLite's online backup API (docs/operations.md "Backup and restore").
 *
 * The copy reads inside one read transaction held from the first step to the last, so it is
 * the database as it was at one instant: every write committed before the backup began, none
 * after. SQLite's backup would otherwise start over whenever another process writes between
 * two steps, and under steady writes never finish. In WAL mode a reader takes no lock a
 * writer waits for, so the server's writes go on meanwhile; its WAL cannot be checkpointed
 * past the backup's snapshot until the backup ends, and grows by what is written meanwhile.
 * The steps are small all the same, so this process never holds the file's pages busy for
 * long, and its own event loop turns between them.
 */

/** Pages copied a step: 64 pages of 4 KiB is 256 KiB, well under a millisecond from the page cache. */
const PAGES_PER_STEP = 64;

export interface BackupReport {
  file: string;
  bytes: number;
  pages: number;
  steps: number;
  /** The longest step copying pages, ms (the step and the turn of the event loop after it). */
  longest_step_ms: number;
  /** The last step, ms: its pages, then the copy's COMMIT and fsync (this process's own file). */
  final_step_ms: number;
  seconds: number;
}

export class BackupRefused extends Error {}

export async function backupSqlite(
  sourcePath: string,
  file: string,
  options: { pagesPerStep?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<BackupReport> {
  if (!existsSync(sourcePath)) throw new BackupRefused(`there is no SQLite database at ${sourcePath}`);
  if (existsSync(file)) throw new BackupRefused(`${file} exists already: back up into a new file`);
  // A folder named for the backups (backups/2026-11-28.sqlite) is made, as `cp` into it would not.
  mkdirSync(dirname(file), { recursive: true });
  const pagesPerStep = options.pagesPerStep ?? PAGES_PER_STEP;
  const started = performance.now();
  const source = new SQLite(sourcePath, { fileMustExist: true });
  try {
    // A server's write transaction is short: wait for it rather than fail the backup.
    source.pragma('busy_timeout = 10000');
    // The snapshot: a read transaction, begun by the first read, held until the copy is done.
    source.exec('begin');
    source.prepare('select count(*) from sqlite_master').get();
    let steps = 0;
    let longest = 0;
    let last = performance.now();
    let pages = 0;
    const progress = await source.backup(file, {
      progress: ({ totalPages, remainingPages }) => {
        const now = performance.now();
        if (steps > 0) longest = Math.max(longest, now - last);
        last = now;
        steps++;
        pages = totalPages;
        options.onProgress?.(totalPages - remainingPages, totalPages);
        return pagesPerStep;
      },
    });
    const finalStep = performance.now() - last;
    source.exec('commit');
    pages = progress.totalPages;
    options.onProgress?.(pages, pages);
    // A copy that fails its check is no backup: it goes, rather than count among the kept.
    await checkSqliteFile(file).catch((err: unknown) => {
      rmSync(file, { force: true });
      throw err;
    });
    return {
      file,
      bytes: statSync(file).size,
      pages,
      steps,
      longest_step_ms: Math.round(longest * 100) / 100,
      final_step_ms: Math.round(finalStep * 100) / 100,
      seconds: Math.round(performance.now() - started) / 1000,
    };
  } finally {
    source.close();
  }
}

/**
 * Checked in a worker thread: an integrity check reads every page, seconds on a large file, and
 * the scheduled backup runs inside the server, whose event loop must not wait for it. The
 * worker is a few lines of CommonJS handed the driver's resolved path, so it runs the same
 * from the sources, the bundle and the tests.
 */
const CHECK = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { readonly: true, fileMustExist: true });
try {
  parentPort.postMessage(db.pragma('integrity_check', { simple: true }));
} finally {
  db.close();
}`;

/** The file opens as a SQLite database and its integrity check finds nothing wrong; throws BackupRefused otherwise. */
export async function checkSqliteFile(file: string): Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const result = await new Promise<unknown>((resolve, reject) => {
    const worker = new Worker(CHECK, { eval: true, workerData: { driver, file } });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the check of ${file} stopped (exit code ${code})`)));
  }).catch((err: unknown) => {
    throw new BackupRefused(
      `${file} is not a readable SQLite database: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  if (result !== 'ok') throw new BackupRefused(`${file} failed SQLite's integrity check: ${String(result)}`);
}
