import { Command } from 'commander';
import type { ImportReport } from '../import/import.service.ts';
import { printResult, withStorage } from './run.ts';

function human(file: string, report: ImportReport): string {
  const done = Object.entries(report.imported).map(([object, n]) => `${n} ${object}`);
  const goodCount = Object.values(report.imported).reduce((a, b) => a + b, 0);
  const out = [
    `Imported ${goodCount} of ${report.lines} lines from ${file}${done.length ? `: ${done.join(', ')}` : ''}.`,
  ];
  if (report.bad_lines.length) {
    out.push(`${report.bad_lines.length} bad line(s), nothing of them written:`);
    for (const b of report.bad_lines) {
      const what = [b.object, b.id].filter(Boolean).join(' ');
      out.push(`  line ${b.line}${what ? ` (${what})` : ''}: ${b.errors.join('; ')}`);
    }
  }
  return out.join('\n');
}

/** `import --workspace WSP FILE.ndjson`: exit code 1 when any line was bad. */
export function importCommand(): Command {
  return new Command('import')
    .description('Import NDJSON records in the API\'s own shapes (one record a line, with its "object").')
    .requiredOption('--workspace <wsp>', 'the wsp_ id')
    .argument('<file>', 'an .ndjson file')
    .option('--json', 'print one JSON document')
    .action(async (file: string, opts: { workspace: string; json?: boolean }) => {
      // Loaded on use: the record schemas and their validators are only needed here.
      const { importRecords } = await import('../import/import.service.ts');
      const { fileSource } = await import('../import/reader.ts');
      const report = await withStorage(async ({ storage, clock }) =>
        importRecords(storage, { workspaceId: opts.workspace, source: await fileSource(file), clock }),
      );
      printResult(opts.json, report, () => human(file, report));
      if (report.bad_lines.length > 0) process.exitCode = 1;
    });
}
