import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { Command } from 'commander';
import { postgresBounds } from '../config.ts';
import type { CopyReport } from '../db/copy.ts';
import { isPostgresUrl, migrate, openStorage } from '../db/index.ts';
import { invalid } from '../errors.ts';
import { printResult, withStorage } from './run.ts';

/**
 * `copy --to URL [--json]` -> {"tables":{"<table>":<rows copied>,…}} (DECISIONS "Operator
 * CLI"): everything in DATABASE_URL into an empty database at URL, SQLite or PostgreSQL.
 */

/** The same forms DATABASE_URL takes: a path, sqlite:PATH, or postgres://… */
function targetUrl(raw: string, source: string): string {
  const url = raw.trim();
  if (url === '' || (/^[a-z]+:\/\//i.test(url) && !isPostgresUrl(url))) {
    throw invalid(`--to must be a SQLite path, sqlite:PATH or postgres://…, got "${raw}"`);
  }
  const same = (a: string) => (isPostgresUrl(a) ? a : resolve(a.replace(/^sqlite:/, '')));
  if (same(url) === same(source)) throw invalid('--to names the database being copied: copy into another one');
  return url;
}

/** A progress bar on stderr, only for a person watching (not with --json, not when piped). */
function progressBar(enabled: boolean) {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: 'copying {bar} {percentage}% | {value}/{total} rows | {table}',
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  return {
    update(done: number, total: number, table: string) {
      if (!running) bar.start(total, done, { table });
      running = true;
      bar.update(done, { table });
    },
    stop: () => running && bar.stop(),
  };
}

function human(report: CopyReport, to: string, seconds: number): string {
  const rows = Object.entries(report.tables);
  const width = Math.max(...rows.map(([name]) => name.length));
  const total = rows.reduce((n, [, count]) => n + count, 0);
  return [
    `Copied into ${isPostgresUrl(to) ? to.replace(/\/\/[^@/]*@/, '//…@') : to}; every table's count checked:`,
    ...rows.map(([name, n]) => `  ${name.padEnd(width)} ${n.toLocaleString('en')}`),
    `${total.toLocaleString('en')} rows in ${seconds.toFixed(1)} s`,
  ].join('\n');
}

export function copyCommand(): Command {
  return new Command('copy')
    .description(
      'Copy everything in DATABASE_URL into an empty database (SQLite or PostgreSQL), then check every count.',
    )
    .requiredOption('--to <url>', 'the empty database: a SQLite path, sqlite:PATH or postgres://…')
    .option('--json', 'print one JSON document')
    .action(async (opts: { to: string; json?: boolean }) => {
      const { copyDatabase, CopyRefused } = await import('../db/copy.ts');
      const bar = progressBar(!opts.json && process.stderr.isTTY === true);
      const started = Date.now();
      const report = await withStorage(async ({ config, storage: source }) => {
        const to = targetUrl(opts.to, config.databaseUrl);
        const target = await openStorage(to, { sqliteBusyTimeoutMs: 10_000, postgres: postgresBounds(config, 'bulk') });
        try {
          await migrate(target);
          return await copyDatabase(source, target, { onProgress: bar.update });
        } catch (err) {
          throw err instanceof CopyRefused ? invalid(err.message) : err;
        } finally {
          bar.stop();
          await target.close();
        }
      });
      printResult(opts.json, report, () => human(report, opts.to, (Date.now() - started) / 1000));
    });
}
