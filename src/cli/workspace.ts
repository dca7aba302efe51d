import { Command } from 'commander';
import { invalid } from '../errors.ts';
import { createWorkspace, setWorkspaceLimit, type Workspace } from '../resources/workspaces/workspace.service.ts';
import { nameEqualsInt, printResult, withStorage } from './run.ts';

function describe(ws: Workspace): string {
  return `${ws.id}  "${ws.name}"  requests_per_minute=${ws.limits.requests_per_minute}`;
}

/** `workspace create` and `workspace set-limit` (DECISIONS "Limits": the workspace's own per-minute limit). */
export function workspaceCommand(): Command {
  const cmd = new Command('workspace').description('Create workspaces and set their own limit.');

  cmd
    .command('create')
    .description('Create a workspace and print its id.')
    .requiredOption('--name <name>', 'the workspace name')
    .option('--limit <requests_per_minute=N>', "the workspace's requests a minute across all its keys", nameEqualsInt)
    .option('--json', 'print one JSON document')
    .action(async (opts: { name: string; limit?: [string, number]; json?: boolean }) => {
      const ws = await withStorage(({ storage, clock }) =>
        opts.limit
          ? createWorkspace(storage, clock, { name: opts.name, ...limitInput(opts.limit) })
          : createWorkspace(storage, clock, { name: opts.name }),
      );
      printResult(opts.json, ws, () => `Created workspace ${describe(ws)}`);
    });

  cmd
    .command('set-limit')
    .description("Set a workspace's requests a minute across all its keys.")
    .argument('<workspace>', 'the wsp_ id')
    .argument('<requests_per_minute=N>', 'the new limit', nameEqualsInt)
    .option('--json', 'print one JSON document')
    .action(async (workspaceId: string, limit: [string, number], opts: { json?: boolean }) => {
      const ws = await withStorage(({ storage, clock }) =>
        setWorkspaceLimit(storage, clock, workspaceId, limit[0], limit[1]),
      );
      printResult(opts.json, ws, () => `Updated workspace ${describe(ws)}`);
    });

  return cmd;
}

/** The same message the service gives for `set-limit` with another name. */
function limitInput([name, value]: [string, number]): { requestsPerMinute: number } {
  if (name !== 'requests_per_minute') {
    throw invalid(`a workspace has one limit, requests_per_minute (got "${name}")`);
  }
  return { requestsPerMinute: value };
}
