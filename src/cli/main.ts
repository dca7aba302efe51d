import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { ApiError } from '../errors.ts';
import { activityCheckCommand } from './activity-check.ts';
import { backupCommand, restoreCommand } from './backup.ts';
import { copyCommand } from './copy.ts';
import { exportCommand } from './export.ts';
import { importCommand } from './import.ts';
import { keysCommand } from './keys.ts';
import { mcpCommand } from './mcp.ts';
import { migrateCommand } from './migrate.ts';
import { failureDocument, printResult, wantsJson } from './run.ts';
import { requestsCommand } from './requests.ts';
import { seedCommand } from './seed.ts';
import { serveCommand } from './serve.ts';
import { staffCommand } from './staff.ts';
import { undoCommand } from './undo.ts';
import { webhooksCommand } from './webhooks.ts';
import { workspaceCommand } from './workspace.ts';

/**
 * The operator CLI, `npx venue-api <command>`. Its commands, options and JSON answers
 * are a contract other tooling depends on (DECISIONS "Operator CLI"): one file per group.
 */
const COMMAND_GROUPS: Array<() => Command> = [
  serveCommand,
  migrateCommand,
  workspaceCommand,
  staffCommand,
  keysCommand,
  seedCommand,
  importCommand,
  undoCommand,
  activityCheckCommand,
  mcpCommand,
  copyCommand,
  backupCommand,
  restoreCommand,
  exportCommand,
  webhooksCommand,
  requestsCommand,
];

function buildProgram(): Command {
  const program = new Command('venue-api').description(
    'Operate a Venue Workspace API: serve it, manage workspaces, staff and keys, seed and import data.',
  );
  // A group's options end where its subcommand begins (`requests show REQ --json` is show's --json).
  program.enablePositionalOptions();
  for (const group of COMMAND_GROUPS) program.addCommand(group());
  // addCommand does not pass settings down, so every command gets the override: a usage
  // error then reaches runCli (exit code 1) instead of ending the process itself.
  const override = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(program);
  return program;
}

/** A failure as one line: the detail of a domain error, never a stack trace. */
function describeFailure(err: unknown): string {
  if (err instanceof ApiError) return err.detail;
  if (err instanceof CommanderError) return err.message.replace(/^error: /, '');
  if (err instanceof ConfigError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

export async function runCli(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    // Help and --version exit 0; usage errors were already printed on stderr by commander.
    if (err instanceof CommanderError && err.exitCode === 0) {
      process.exitCode = 0;
      return;
    }
    const message = describeFailure(err)
      .replace(/\s*\n\s*/g, ' ')
      .trim();
    if (!(err instanceof CommanderError)) process.stderr.write(`venue-api: ${message}\n`);
    // `--json` prints one JSON document, a failure included (DECISIONS "Operator CLI").
    if (wantsJson(argv)) printResult(true, failureDocument(err, message), () => message);
    process.exitCode = 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runCli(process.argv);
}
