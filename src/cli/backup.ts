import cliProgress from 'cli-progress';
import { Command } from 'commander';
import { ConfigError, loadConfig } from '../config.ts';
import { isPostgresUrl, sqlitePath } from '../db/database-url.ts';
import { invalid } from '../errors.ts';
import { printResult } from './run.ts';

/**
 * `backup FILE [--json]` and `restore FILE --to PATH [--json]` (DECISIONS "Operator CLI"): a
 * consistent copy of the SQLite database while the server runs, and a checked copy put back
 * for a stopped one. Both open the files themselves and never migrate them.
 */
function progressBar(enabled: boolean) {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'backing up {bar} {percentage}% | {value}/{total} pages', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  return {
    update(done: number, total: number) {
      if (!running) bar.start(total, done);
      running = true;
      bar.update(done);
    },
    stop: () => running && bar.stop(),
  };
}

export function backupCommand(): Command {
  return new Command('backup')
    .description('SQLite only: a consistent copy of the database into a new FILE while the server runs.')
    .argument('<file>', 'the new file to write (it must not exist)')
    .option('--json', 'print one JSON document')
    .action(async (file: string, opts: { json?: boolean }) => {
      const config = loadConfig();
      if (isPostgresUrl(config.databaseUrl)) {
        throw new ConfigError(
          'backup copies a SQLite database; on PostgreSQL use pg_dump and pg_restore (docs/operations.md "Backup and restore")',
        );
      }
      const { backupSqlite, BackupRefused } = await import('../db/backup.ts');
      const bar = progressBar(!opts.json && process.stderr.isTTY === true);
      const report = await backupSqlite(sqlitePath(config.databaseUrl), file, { onProgress: bar.update })
        .catch((err: unknown) => {
          throw err instanceof BackupRefused ? invalid(err.message) : err;
        })
        .finally(bar.stop);
      printResult(
        opts.json,
        report,
        () =>
          `Backed up ${report.pages.toLocaleString('en')} pages (${(report.bytes / 1048576).toFixed(1)} MiB) into ${file} ` +
          `in ${report.seconds} s; ${report.steps} steps, the longest ${report.longest_step_ms} ms (the last, with its fsync, ${report.final_step_ms} ms). The copy passed SQLite's integrity check.`,
      );
    });
}

export function restoreCommand(): Command {
  return new Command('restore')
    .description('SQLite only: check a backup FILE and put it at PATH (which must not exist) for a stopped server.')
    .argument('<file>', 'the backup to restore')
    .requiredOption('--to <path>', 'where the server will open it (DATABASE_URL of the server)')
    .option('--json', 'print one JSON document')
    .action(async (file: string, opts: { to: string; json?: boolean }) => {
      const { restoreSqlite } = await import('../db/restore.ts');
      const { BackupRefused } = await import('../db/backup.ts');
      if (isPostgresUrl(opts.to)) {
        throw invalid(
          'restore puts back a SQLite backup; on PostgreSQL use pg_restore (docs/operations.md "Backup and restore")',
        );
      }
      const to = sqlitePath(opts.to);
      const { schema } = await restoreSqlite(file, to).catch((err: unknown) => {
        throw err instanceof BackupRefused ? invalid(err.message) : err;
      });
      printResult(
        opts.json,
        { restored: to },
        () =>
          `Restored ${file} to ${to}; it passed SQLite's integrity check and its schema is at ${schema ?? 'no migration'} ` +
          '(a server started on it migrates what is missing, unless MIGRATE=off).',
      );
    });
}
