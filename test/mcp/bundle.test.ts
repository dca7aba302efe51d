import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The bundle production runs (scripts/bundle.mjs, built by vitest's globalSetup): esbuild
 * puts the MCP SDK in a chunk of its own that only `venue-api mcp`'s dynamic import loads,
 * so neither a server start nor any other CLI command reads it. The source-level rule is in
 * test/architecture/layers.test.ts; this checks that the bundler kept it.
 */
const BUNDLE = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'bundle');
const MCP_SERVER = /\bvar McpServer=class\b|\bclass McpServer\b/;

/** Every bundle file an entry loads before running: its static imports, transitively. */
function staticFiles(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/(?:\bfrom\s*|\bimport\s*)"(\.{1,2}\/[^"]+\.js)"/g)) {
      visit(resolve(dirname(file), m[1]!));
    }
  };
  visit(join(BUNDLE, entry));
  return seen;
}

describe('the bundle loads the MCP SDK only for `venue-api mcp`', () => {
  it('has the SDK in a chunk that the server and the CLI do not load at start', () => {
    const chunks = readdirSync(BUNDLE).filter((f) => f.endsWith('.js'));
    const withSdk = chunks.filter((f) => MCP_SERVER.test(readFileSync(join(BUNDLE, f), 'utf8')));
    expect(withSdk).toHaveLength(1);
    for (const entry of ['server.js', 'cli/main.js']) {
      const loaded = [...staticFiles(entry)];
      expect(loaded.length).toBeGreaterThan(3);
      expect(loaded.filter((f) => MCP_SERVER.test(readFileSync(f, 'utf8')))).toEqual([]);
    }
    // The CLI reaches it by a dynamic import, resolved by the bundler to that chunk.
    const main = readFileSync(join(BUNDLE, 'cli', 'main.js'), 'utf8');
    expect(main).toContain(`import("../${withSdk[0]}")`);
  });

  it('holds venue-api-client with the MCP server, so `npx venue-api mcp` needs no package beside the bundle', () => {
    const sources = readdirSync(BUNDLE)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(BUNDLE, f), 'utf8'));
    const withClient = sources.filter((source) => /\bvar VenueClient=class\b|\bclass VenueClient\b/.test(source));
    expect(withClient).toHaveLength(1);
    expect(MCP_SERVER.test(withClient[0]!)).toBe(true);
    expect(sources.filter((source) => source.includes('"venue-api-client"'))).toEqual([]);
  });
});
