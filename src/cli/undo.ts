import { Command } from 'commander';
import { undoKeyChanges, type UndoReport } from '../resources/changes/undo.service.ts';
import { describeSkip } from '../resources/changes/skip-reasons.ts';
import { BY_OPTION, operatorActor, operatorName, printResult, withStorage } from './run.ts';

function human(report: UndoReport, dryRun: boolean): string {
  const lines = [
    `${dryRun ? 'Would revert' : 'Reverted'} ${report.reverted} change(s); skipped ${report.skipped.length}.`,
  ];
  for (const s of report.skipped) {
    const what = s.field ? `${s.action} ${s.customer} ${s.field}` : `${s.action} ${s.customer}`;
    lines.push(`  skipped ${s.change} (${what}): ${describeSkip(s)}`);
  }
  return lines.join('\n');
}

/**
 * `undo KEY_ID [--json]` -> {"reverted":N,"skipped":[…]} (DECISIONS "Operator CLI", "Change
 * log and undo"). The undo is recorded as the operator's change and in the audit log: `--by`
 * names them, else the account running the CLI. `--dry-run` reports and writes nothing.
 */
export function undoCommand(): Command {
  return new Command('undo')
    .description("Undo a key's changes, newest first; never reverts an edit made after them.")
    .argument('<key>', 'the key_ id')
    .option('--dry-run', 'report what would be reverted and skipped; change nothing')
    .option(BY_OPTION[0], 'who is running the undo, for the change log and the audit log (default: the OS user)')
    .option('--json', 'print one JSON document')
    .action(async (keyId: string, opts: { dryRun?: boolean; by?: string; json?: boolean }) => {
      const report = await withStorage(({ storage, clock }) =>
        undoKeyChanges(storage, keyId, {
          by: { kind: 'operator', id: operatorName(opts.by) },
          clock,
          dryRun: opts.dryRun === true,
          audit: operatorActor(opts.by),
        }),
      );
      printResult(opts.json, report, () => human(report, opts.dryRun === true));
    });
}
