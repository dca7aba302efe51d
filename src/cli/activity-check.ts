import { Command } from 'commander';
import { runActivityCheck, type ActivityCheckResult } from '../jobs/activity-check.ts';
import { printResult, withStorage } from './run.ts';

function human(result: ActivityCheckResult): string {
  if (!result.ran) return 'Another process is running the unusual-activity check right now; nothing was done.';
  const head = `Checked ${result.keys_checked} live key(s) at ${result.checked_at}: ${result.paused.length} paused.`;
  const lines = result.paused.map(
    (p) =>
      `${p.key}  "${p.name}"  ${p.workspace}  paused (${p.rule}): ${p.reason}` +
      `  [emails sent ${p.emails_sent}, kept in outbox ${p.emails_kept}]`,
  );
  return [head, ...lines].join('\n');
}

/**
 * `activity-check`: the hourly unusual-activity check, now (DECISIONS "Operator CLI",
 * "Unusual activity"). It takes the same job lock as the servers' hourly run, so the two
 * never run at once; an on-demand run does not use up the servers' hourly run.
 */
export function activityCheckCommand(): Command {
  return new Command('activity-check')
    .description('Check live keys for unusual activity now; pause and report the unusual ones.')
    .option('--json', 'print one JSON document')
    .action(async (opts: { json?: boolean }) => {
      const result = await withStorage(({ config, storage, clock }) =>
        runActivityCheck({
          store: storage,
          engine: storage.engine,
          clock,
          mail: { smtpUrl: config.smtpUrl, mailFrom: config.mailFrom },
        }),
      );
      printResult(opts.json, result, () => human(result));
    });
}
