import { Command } from 'commander';
import { loadConfig, postgresBounds } from '../config.ts';
import { openStorage } from '../db/index.ts';
import { migrateDownTo, migrateToLatest, type MigrateOutcome } from '../db/migrate.ts';
import { printResult } from './run.ts';

function human(outcome: MigrateOutcome): string {
  const lines = [
    outcome.applied.length > 0 ? `Applied ${outcome.applied.join(', ')}.` : null,
    outcome.reverted.length > 0 ? `Rolled back ${outcome.reverted.join(', ')}.` : null,
    outcome.applied.length + outcome.reverted.length === 0 ? 'Nothing to do.' : null,
    `The schema is at ${outcome.current ?? 'no migration'}.`,
    outcome.unknown.length > 0
      ? `The database also holds migrations this version does not know (${outcome.unknown.join(', ')}); left as they are.`
      : null,
  ];
  return lines.filter((line) => line !== null).join('\n');
}

/**
 * `migrate [--down-to NAME]`: the schema step of a deploy (DECISIONS "Operator CLI"); a
 * server started with MIGRATE=off leaves it to this. It opens the database itself, since
 * every other command migrates (or checks, with MIGRATE=off) before it runs.
 */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description('Bring the database schema up to date, or roll it back to a migration with --down-to.')
    .option('--down-to <name>', 'run down every migration after NAME (a rollback)')
    .option('--json', 'print one JSON document')
    .action(async (opts: { downTo?: string; json?: boolean }) => {
      const config = loadConfig();
      // A migration may build an index over every row: no statement or lock timeout.
      const storage = await openStorage(config.databaseUrl, { postgres: postgresBounds(config, 'bulk') });
      let outcome: MigrateOutcome;
      try {
        outcome =
          opts.downTo === undefined ? await migrateToLatest(storage) : await migrateDownTo(storage, opts.downTo);
      } finally {
        await storage.close();
      }
      printResult(opts.json, outcome, () => human(outcome));
    });
}
