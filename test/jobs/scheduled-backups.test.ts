import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { BackupReport } from '../../src/db/backup.ts';
import { backupFiles, ScheduledBackups } from '../../src/jobs/scheduled-backups.ts';

/** BACKUP_INTERVAL_MINUTES (docs/operations.md "Backup and restore"): checked copies in dated files, the newest kept. */
describe('scheduled backups', () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-scheduled-'));
  const source = join(dir, 'venue.sqlite');
  const folder = join(dir, 'backups');
  const db = new SQLite(source);
  db.pragma('journal_mode = WAL');
  db.exec('create table notes (n integer)');
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies into a dated file, checks it, and keeps only the newest BACKUP_KEEP', async () => {
    let at = Date.parse('2026-11-29T01:00:00Z');
    const taken: BackupReport[] = [];
    const jobs = new ScheduledBackups({
      source,
      dir: folder,
      intervalMinutes: 60,
      keep: 2,
      now: () => new Date(at),
      onBackup: (report) => taken.push(report),
    });
    for (let n = 1; n <= 3; n++) {
      db.prepare('insert into notes (n) values (?)').run(n);
      await jobs.runOnce();
      at += 3_600_000;
    }
    expect(backupFiles(folder)).toEqual(['venue-2026-11-29T02-00-00Z.sqlite', 'venue-2026-11-29T03-00-00Z.sqlite']);
    expect(taken.map((r) => r.file)).toEqual(
      ['01', '02', '03'].map((h) => join(folder, `venue-2026-11-29T${h}-00-00Z.sqlite`)),
    );
    // Each copy holds what was committed when it was taken (the WAL's rows included).
    const copy = new SQLite(join(folder, 'venue-2026-11-29T03-00-00Z.sqlite'), { readonly: true });
    expect(copy.prepare('select count(*) from notes').pluck().get()).toBe(3);
    copy.close();
  });

  it('a failed backup is reported, thrown, and leaves no file behind', async () => {
    const failures: unknown[] = [];
    const jobs = new ScheduledBackups({
      source: join(dir, 'absent.sqlite'),
      dir: join(dir, 'none'),
      intervalMinutes: 60,
      keep: 2,
      onFailure: (err) => failures.push(err),
    });
    await expect(jobs.runOnce()).rejects.toThrow(/no SQLite database/);
    expect(failures).toHaveLength(1);
    expect(existsSync(join(dir, 'none')) ? readdirSync(join(dir, 'none')) : []).toEqual([]);
  });

  it('starts with a backup when the newest in the folder is an interval old, and not after a recent one', async () => {
    const started = join(dir, 'started');
    const make = () => new ScheduledBackups({ source, dir: started, intervalMinutes: 60, keep: 5, firstDelayMs: 50 });
    const first = make();
    first.start();
    await vi.waitFor(() => expect(backupFiles(started)).toHaveLength(1), { timeout: 10_000 });
    await first.stop();
    // A restart a moment later: the next backup is due in an hour, not now.
    const second = make();
    second.start();
    await new Promise((r) => setTimeout(r, 500));
    await second.stop();
    expect(backupFiles(started)).toHaveLength(1);
  });

  it('is configured for a SQLite file only, into backups/ beside it unless BACKUP_DIR says where', () => {
    expect(loadConfig({ DATABASE_URL: './data/venue.sqlite' }).backups).toBeNull();
    expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/venue.sqlite', BACKUP_INTERVAL_MINUTES: '60' }).backups).toEqual({
      source: '/srv/venue.sqlite',
      dir: '/srv/backups',
      intervalMinutes: 60,
      keep: 24,
    });
    expect(
      loadConfig({ DATABASE_URL: '/srv/v.sqlite', BACKUP_INTERVAL_MINUTES: '5', BACKUP_DIR: '/b', BACKUP_KEEP: '3' })
        .backups,
    ).toMatchObject({ dir: '/b', keep: 3 });
    expect(() => loadConfig({ DATABASE_URL: 'postgres://h/db', BACKUP_INTERVAL_MINUTES: '60' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: ':memory:', BACKUP_INTERVAL_MINUTES: '60' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: '/srv/v.sqlite', BACKUP_INTERVAL_MINUTES: 'hourly' })).toThrow(ConfigError);
  });
});
