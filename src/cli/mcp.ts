import { Command } from 'commander';

/**
 * `venue-api mcp`: the MCP server for software agents, over stdio (docs/agents.md).
 * Configured by VENUE_API_KEY and VENUE_API_URL, not by the database: it is a client of the
 * API. The SDK is imported only here, on demand, so no other command and no server start loads it.
 */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description(
      'Serve the API to an AI agent as an MCP server over stdio, with the key in VENUE_API_KEY, against VENUE_API_URL (default http://127.0.0.1:8080).',
    )
    .action(async () => {
      const { readMcpSettings } = await import('../mcp/settings.ts');
      const { serveMcp } = await import('../mcp/server.ts');
      await serveMcp(readMcpSettings());
    });
}
