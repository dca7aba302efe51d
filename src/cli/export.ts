import { once } from 'node:events';
import { Command, Option } from 'commander';
import { withStorage } from './run.ts';

/**
 * `export --workspace WSP [--mode live|test]` (DECISIONS "Operator CLI"): NDJSON on stdout in
 * the import's own line shape, so `venue-api import` of the output recreates the records.
 * Nothing but the lines goes to stdout; a pipe that reads slowly slows the export down
 * instead of filling memory.
 */
export function exportCommand(): Command {
  return new Command('export')
    .description("Print a workspace's records as NDJSON in the import's line shape (both modes unless --mode).")
    .requiredOption('--workspace <wsp>', 'the wsp_ id')
    .addOption(new Option('--mode <mode>', "only this mode's customers, bookings and orders").choices(['live', 'test']))
    .action(async (opts: { workspace: string; mode?: 'live' | 'test' }) => {
      const { exportLines } = await import('../import/export.service.ts');
      await withStorage(async ({ storage, clock }) => {
        for await (const line of exportLines(storage, { workspaceId: opts.workspace, mode: opts.mode, clock })) {
          if (!process.stdout.write(`${line}\n`)) await once(process.stdout, 'drain');
        }
      });
    });
}
