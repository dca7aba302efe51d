import cliProgress from 'cli-progress';
import { Command } from 'commander';
import type { SeedCounts } from '../seed/seed.service.ts';
import { positiveInt, printResult, withStorage } from './run.ts';

/** A progress bar on stderr, only for a person watching (not with --json, not when piped). */
function progressBar(enabled: boolean) {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: 'seeding {bar} {percentage}% | {value}/{total} customers | {rate}/s | eta {eta_formatted}',
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let running = false;
  return {
    update(done: number, total: number) {
      const rate = Math.round(done / Math.max(0.001, (Date.now() - started) / 1000));
      if (!running) bar.start(total, done, { rate });
      running = true;
      bar.update(done, { rate });
    },
    stop: () => running && bar.stop(),
  };
}

function summary(counts: SeedCounts, rows: number, seconds: number): string {
  const lines = Object.entries(counts).map(([name, n]) => `  ${name.padEnd(17)} ${n.toLocaleString('en')}`);
  return [
    'Seeded:',
    ...lines,
    `${rows.toLocaleString('en')} rows in ${seconds.toFixed(1)} s (${Math.round(counts.customers / seconds).toLocaleString('en')} customers/s, ${Math.round(rows / seconds).toLocaleString('en')} rows/s)`,
  ].join('\n');
}

/** `seed --workspace WSP [--customers N]`: counts per collection (DECISIONS "Operator CLI"). */
export function seedCommand(): Command {
  return new Command('seed')
    .description('Fill a workspace with realistic, consistent data in every collection (live and test).')
    .requiredOption('--workspace <wsp>', 'the wsp_ id')
    .option('--customers <n>', 'customers to make; bookings and orders scale with them', positiveInt, 200)
    .option('--json', 'print one JSON document')
    .action(async (opts: { workspace: string; customers: number; json?: boolean }) => {
      // Loaded on use (faker's locales are large), so other commands start quickly.
      const { rowsWritten, seedWorkspace } = await import('../seed/seed.service.ts');
      const bar = progressBar(!opts.json && process.stderr.isTTY === true);
      const started = Date.now();
      const counts = await withStorage(({ storage }) =>
        seedWorkspace(storage, { workspaceId: opts.workspace, customers: opts.customers, onProgress: bar.update }),
      ).finally(bar.stop);
      printResult(opts.json, counts, () => summary(counts, rowsWritten(counts), (Date.now() - started) / 1000));
    });
}
