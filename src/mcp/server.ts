import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { canonicalJson } from '../lib/canonical-json.ts';
import { problemText, toolResult } from './answers.ts';
import { type ApiDocument, type Failure, loadApiDocument } from './api-document.ts';
import { VenueApi } from './calls.ts';
import { type KeyObject, loadKey } from './profile.ts';
import type { McpSettings } from './settings.ts';
import type { OfferedTool, ToolFamily } from './tools/context.ts';
import { customerTools } from './tools/customer.tools.ts';
import { membershipTools } from './tools/membership.tools.ts';
import { readTools } from './tools/read.tools.ts';

/**
 * `venue-api mcp`: an MCP server whose tools call the Venue API over HTTP with one key.
 * describe_key is always offered; every other tool only when `GET /key` says the key may
 * use it, so an agent is never offered a write it would be refused.
 */
const FAMILIES: ToolFamily[] = [readTools, customerTools, membershipTools];

const INSTRUCTIONS = [
  "Tools for a Venue workspace's data (customers, bookings, orders, venues, events and more), through its API with one API key.",
  'The key decides what is offered: describe_key tells what it may read and write, its mode (test or live data) and its limits.',
  'Every change is recorded and can be undone by a person. When a tool answer says to stop and ask a person, stop and do that.',
].join(' ');

/** The tools offered beside describe_key, rebuilt when what the key may do changes. */
class KeyTools {
  private registered: OfferedTool[] = [];
  private shape = '';
  private document: ApiDocument | null = null;

  constructor(
    private readonly server: McpServer,
    private readonly api: VenueApi,
  ) {}

  /** Offers the tools `key` may use, as /openapi.json (read once) describes them. */
  async offer(key: KeyObject): Promise<Failure | null> {
    if (!this.document) {
      const loaded = await loadApiDocument(this.api);
      if (loaded.kind !== 'ok') return loaded.result;
      this.document = loaded.document;
    }
    const { id, can_read, can_write, contacts_masked, limits } = key;
    const shape = canonicalJson({ id, can_read, can_write, contacts_masked, limits });
    if (shape === this.shape) return null;
    for (const { tool } of this.registered) tool.remove();
    const context = { api: this.api, profile: { key, document: this.document } };
    this.registered = FAMILIES.flatMap((family) => family(this.server, context));
    this.shape = shape;
    return null;
  }

  names(): string[] {
    return ['describe_key', ...this.registered.map((t) => t.name)];
  }
}

async function buildMcpServer(settings: McpSettings): Promise<{ server: McpServer; summary: string }> {
  const api = new VenueApi(settings);
  const server = new McpServer({ name: 'venue-api', version: '0.1.0' }, { instructions: INSTRUCTIONS });
  const tools = new KeyTools(server, api);

  server.registerTool(
    'describe_key',
    {
      title: 'Describe the API key',
      description: [
        'Tells what this API key may do: the collections it can read (can_read), the writes it may make (can_write), whether it works on test or live data (mode), whether contacts are masked, its expiry and its limits (requests, writes and removals per minute and day, page sizes).',
        'Use it first, and again after an error about the key: if the key was changed or resumed, the tools on offer are updated.',
        'Returns the key object as compact JSON.',
      ].join(' '),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async () => {
      const loaded = await loadKey(api);
      if (loaded.kind !== 'ok') return toolResult(loaded.result);
      const failed = await tools.offer(loaded.key);
      if (failed) return toolResult(failed);
      return { content: [{ type: 'text', text: JSON.stringify(loaded.key) }] };
    },
  );

  // A key that does not work at start still gets a server: describe_key then tells the agent
  // why (a paused key: stop and ask a person) and offers the tools once the key works again.
  const loaded = await loadKey(api);
  const failed = loaded.kind === 'ok' ? await tools.offer(loaded.key) : loaded.result;
  if (failed)
    return { server, summary: `the key does not work yet, only describe_key is offered: ${failureLine(failed)}` };
  return { server, summary: `tools offered: ${tools.names().join(', ')}` };
}

function failureLine(failure: Failure): string {
  const text = failure.kind === 'problem' ? problemText(failure.error) : failure.message;
  return text.split('\n')[0]!;
}

/** Serves over stdio until the client closes it. Nothing but the protocol is written to stdout. */
export async function serveMcp(settings: McpSettings): Promise<void> {
  const { server, summary } = await buildMcpServer(settings);
  process.stderr.write(`venue-api mcp: ${settings.apiUrl}, ${summary}\n`);
  await server.connect(new StdioServerTransport());
  const close = () => void server.close().finally(() => process.exit(0));
  process.stdin.once('end', close);
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
}
