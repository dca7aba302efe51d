import { Command } from 'commander';
import { port, positiveInt } from './run.ts';

/** `serve`: the API in the foreground, as `npm start` runs it; `--workers N` runs N processes. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('Run the API server (PORT and HOST from the environment unless given).')
    .option('--port <port>', 'port to listen on', port)
    .option('--host <host>', 'address to listen on')
    .option(
      '--workers <n>',
      'server processes on the one port (PostgreSQL only when above 1; else WORKERS)',
      positiveInt,
    )
    .action(async (opts: { port?: number; host?: string; workers?: number }) => {
      // Loaded on use: the server's dependencies would slow every other command's start.
      const { serve } = await import('../server.ts');
      await serve({
        ...(opts.port === undefined ? {} : { port: opts.port }),
        ...(opts.host === undefined ? {} : { host: opts.host }),
        ...(opts.workers === undefined ? {} : { workers: opts.workers }),
      });
    });
}
