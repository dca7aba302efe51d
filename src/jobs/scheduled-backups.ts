import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { backupSqlite, type BackupReport } from '../db/backup.ts';

/**
 * SQLite backups on a schedule (BACKUP_INTERVAL_MINUTES, docs/operations.md "Backup and
 * restore"): the `backup` command's online copy, checked, into dated files of BACKUP_DIR, the
 * newest BACKUP_KEEP kept. A server with SQLite is one process, so nothing else takes them.
 */

export interface ScheduledBackupsOptions {
  /** The database file. */
  source: string;
  dir: string;
  intervalMinutes: number;
  keep: number;
  onBackup?: (report: BackupReport) => void;
  onFailure?: (err: unknown) => void;
  now?: () => Date;
  /** The soonest a backup is taken after start (ms; a minute), so a starting server is not slowed by one. */
  firstDelayMs?: number;
}

/** venue-2026-11-29T01-50-00Z.sqlite: sorts by time as text, and names its instant. */
const NAME = /^venue-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.sqlite$/;

function fileName(at: Date): string {
  return `venue-${at.toISOString().slice(0, 19).replaceAll(':', '-')}Z.sqlite`;
}

/** The schedule's backups in the folder, oldest first (none when the folder is not there yet). */
export function backupFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => NAME.test(name))
      .sort();
  } catch {
    return [];
  }
}

export class ScheduledBackups {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private readonly intervalMs: number;
  private readonly now: () => Date;

  constructor(private readonly options: ScheduledBackupsOptions) {
    this.intervalMs = options.intervalMinutes * 60_000;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * The first backup is due an interval after the newest one in the folder, so restarts do
   * not take one each, and a server down past its time takes one a minute after it starts.
   */
  start(): void {
    if (this.timer) return;
    const newest = backupFiles(this.options.dir).at(-1);
    const last = newest === undefined ? 0 : statSync(join(this.options.dir, newest)).mtimeMs;
    this.schedule(Math.max(this.options.firstDelayMs ?? 60_000, last + this.intervalMs - this.now().getTime()));
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => {
      // A failure was reported by runOnce; the next backup is tried at its time all the same.
      this.running = this.runOnce()
        .catch(() => undefined)
        .then(() => {
          if (this.timer) this.schedule(this.intervalMs);
        });
    }, delay).unref();
  }

  /** One backup now, then the oldest past BACKUP_KEEP removed; a failure is reported and thrown. */
  async runOnce(): Promise<BackupReport> {
    const { dir, keep } = this.options;
    try {
      const report = await backupSqlite(this.options.source, join(dir, fileName(this.now())));
      const all = backupFiles(dir);
      for (const old of all.slice(0, Math.max(0, all.length - keep))) rmSync(join(dir, old), { force: true });
      this.options.onBackup?.(report);
      return report;
    } catch (err) {
      this.options.onFailure?.(err);
      throw err;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
