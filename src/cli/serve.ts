import { Command } from 'commander';
import { port } from './run.ts';

/** `serve`: the API in the foreground, as `npm start` runs it. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('Run the API server (PORT and HOST from the environment unless given).')
    .option('--port <port>', 'port to listen on', port)
    .option('--host <host>', 'address to listen on')
    .action(async (opts: { port?: number; host?: string }) => {
      // Loaded on use: the server's dependencies would slow every other command's start.
      const { serve } = await import('../server.ts');
      await serve({
        ...(opts.port === undefined ? {} : { port: opts.port }),
        ...(opts.host === undefined ? {} : { host: opts.host }),
      });
    });
}
