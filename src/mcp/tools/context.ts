import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { VenueApi } from '../calls.ts';
import type { Profile } from '../profile.ts';

/** What every tool family is built from: the API client and what the key may do. */
export interface ToolContext {
  api: VenueApi;
  profile: Profile;
}

export interface OfferedTool {
  name: string;
  tool: RegisteredTool;
}

/** Registers the tools of one family that the key can use, and returns them (none when it can use none). */
export type ToolFamily = (server: McpServer, context: ToolContext) => OfferedTool[];

/** An id as one path segment: whatever the agent sends, it cannot reach another path. */
export const segment = (id: string) => encodeURIComponent(id);
