import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { systemClock } from '../../src/lib/time.ts';
import { createKey, type CreateKeyInput } from '../../src/resources/keys/key.service.ts';
import type { TestStorage } from '../helpers/storage.ts';

/**
 * An agent's side of `venue-api mcp`: the SDK's own Client over stdio, spawning the bundled
 * CLI (`node dist/bundle/cli/main.js mcp`) as an MCP client configuration does.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ToolAnswer {
  isError: boolean;
  /** The first text item: the record's JSON, or the error's words. */
  text: string;
  texts: string[];
  json(): any;
}

export interface Agent {
  client: Client;
  toolNames(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
  /** What the server wrote on stderr (never on stdout: that is the protocol). */
  stderr(): string;
  close(): Promise<void>;
}

export async function connectAgent(apiUrl: string, apiKey: string): Promise<Agent> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['dist/bundle/cli/main.js', 'mcp'],
    cwd: ROOT,
    env: { VENUE_API_URL: apiUrl, VENUE_API_KEY: apiKey },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'venue-api-test-agent', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
    call: async (name, args = {}) => {
      const res = (await client.callTool({ name, arguments: args })) as {
        isError?: boolean;
        content: Array<{ type: string; text?: string }>;
      };
      const texts = res.content.map((c) => c.text ?? '');
      return { isError: res.isError === true, text: texts[0] ?? '', texts, json: () => JSON.parse(texts[0]!) };
    },
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** A key straight through the key service, as the CLI's `keys create` makes it. */
export async function makeKey(
  storage: TestStorage,
  input: Omit<CreateKeyInput, 'name'> & { name?: string },
): Promise<{ id: string; secret: string }> {
  const made = await createKey(storage, systemClock, { name: 'agent', ...input });
  return { id: made.key.id, secret: made.secret };
}

/** Polls until `check` holds (bounded), for what spreads by polling such as a key's pause. */
export async function eventually<T>(what: string, fn: () => Promise<T>, check: (v: T) => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
