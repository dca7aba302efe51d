/**
 * What `venue-api mcp` is configured by: the key it calls the API with and where the API is.
 * Read once at start from the environment, as an MCP client passes it (docs/agents.md); a
 * bad value stops the process with a message naming it, before anything is served.
 */
export interface McpSettings {
  apiUrl: string;
  apiKey: string;
}

const DEFAULT_API_URL = 'http://127.0.0.1:8080';

export function readMcpSettings(env: NodeJS.ProcessEnv = process.env): McpSettings {
  const apiKey = env.VENUE_API_KEY?.trim() ?? '';
  if (apiKey === '') {
    throw new Error(
      'VENUE_API_KEY is not set: give the MCP server the API key the agent is to use (vw_test_… or vw_live_…)',
    );
  }
  const raw = env.VENUE_API_URL?.trim() || DEFAULT_API_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`VENUE_API_URL must be an http(s) URL such as ${DEFAULT_API_URL} (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`VENUE_API_URL must be an http(s) URL such as ${DEFAULT_API_URL} (got "${raw}")`);
  }
  // The API's paths hang off the base as given (it may sit under a path behind a proxy).
  return { apiKey, apiUrl: url.href.replace(/\/+$/, '') };
}
