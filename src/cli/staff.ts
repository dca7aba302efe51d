import { Command } from 'commander';
import { setStaffPassword } from '../resources/staff/staff.service.ts';
import { addStaff, STAFF_ROLES } from '../resources/workspaces/workspace.service.ts';
import { BY_OPTION, operatorActor, printResult, withStorage } from './run.ts';

/** `staff add|set-password`: the people who sign in to the developer settings (SPEC "Authentication" 2). */
export function staffCommand(): Command {
  const cmd = new Command('staff').description("Manage a workspace's staff.");
  cmd
    .command('add')
    .description('Add a staff member to a workspace.')
    .requiredOption('--workspace <wsp>', 'the wsp_ id')
    .requiredOption('--email <email>', 'their sign-in email')
    .requiredOption('--name <name>', 'their name')
    .requiredOption('--role <role>', `one of ${STAFF_ROLES.join(', ')}`)
    .option('--password <password>', 'their password (8 characters or more); without it they cannot sign in yet')
    .option(...BY_OPTION)
    .option('--json', 'print one JSON document')
    .action(
      async (opts: {
        workspace: string;
        email: string;
        name: string;
        role: string;
        password?: string;
        by?: string;
        json?: boolean;
      }) => {
        const member = await withStorage(({ storage, clock }) =>
          addStaff(storage, clock, {
            workspaceId: opts.workspace,
            email: opts.email,
            name: opts.name,
            role: opts.role,
            ...(opts.password === undefined ? {} : { password: opts.password }),
            by: operatorActor(opts.by),
          }),
        );
        printResult(
          opts.json,
          member,
          () =>
            `Added ${member.role} ${member.name} <${member.email}> (${member.id}) to ${member.workspace_id}` +
            (opts.password === undefined ? '\nNo password was set (--password), so they cannot sign in yet.' : ''),
        );
      },
    );
  cmd
    .command('set-password')
    .description("Set a staff member's password for the console; every session they have ends.")
    .requiredOption('--workspace <wsp>', 'the wsp_ id')
    .requiredOption('--email <email>', 'their sign-in email')
    .requiredOption('--password <password>', 'the new password (8 characters or more)')
    .option(...BY_OPTION)
    .option('--json', 'print one JSON document')
    .action(async (opts: { workspace: string; email: string; password: string; by?: string; json?: boolean }) => {
      const result = await withStorage(({ storage, clock }) =>
        setStaffPassword(storage, clock, {
          workspaceId: opts.workspace,
          email: opts.email,
          password: opts.password,
          by: operatorActor(opts.by),
        }),
      );
      printResult(
        opts.json,
        result,
        () => `Set the password of ${result.email} (${result.id}); ended ${result.sessions_ended} session(s).`,
      );
    });
  return cmd;
}
