import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, ROOT, SRC } from './source-files.ts';

/**
 * The house rule (ARCHITECTURE.md "The house", CONVENTIONS "The house"): dependencies point one
 * way, cli / server -> app -> HTTP edge (http/, route files, ops/) -> services ->
 * repositories -> db. Checked on the import statements of every file under src/.
 */

/** Every module a file names: static imports and re-exports, and (unless `staticOnly`) dynamic import(). */
function specifiers(source: string, staticOnly = false): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s+['"]([^'"]+)['"]/gms,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    ...(staticOnly ? [] : [/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g]),
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1]!);
  return found;
}

interface Edge {
  from: string;
  to: string;
}

/** `to` is a path relative to the repository (src/…) for our modules, the package name otherwise. */
function edges(): Edge[] {
  return filesUnder(SRC).flatMap((file) =>
    specifiers(readFileSync(file, 'utf8')).map((spec) => ({
      from: relative(ROOT, file),
      to: spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec)) : spec,
    })),
  );
}

const EDGES = edges();
const EDGE_DIRS = ['src/http/', 'src/ops/', 'src/cli/', 'src/console/', 'src/mcp/'];
const FRAMEWORK = (to: string) => to === 'fastify' || to === 'fastify-plugin' || to.startsWith('@fastify/');
const isRouteFile = (path: string) => path.endsWith('.routes.ts');

/** The domain: everything that must run without HTTP (the CLI, jobs and tests call it). */
const DOMAIN_DIRS = ['src/resources/', 'src/jobs/', 'src/limits/', 'src/db/', 'src/lib/', 'src/import/', 'src/seed/'];
const inDomain = (path: string) => DOMAIN_DIRS.some((d) => path.startsWith(d)) && !isRouteFile(path);

function violations(rule: (edge: Edge) => boolean): string[] {
  return EDGES.filter(rule).map((e) => `${e.from} -> ${e.to}`);
}

/**
 * What `import` (not `import type`, not a dynamic import()) pulls in from an entry: our
 * modules as src/… paths, packages by name. What a process loads before it does anything.
 */
function staticClosure(entry: string): Set<string> {
  const runtime = (source: string) =>
    [
      ...source.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+['"]([^'"]+)['"]/gms),
      ...source.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ].map((m) => m[1]!);
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const spec of runtime(readFileSync(join(ROOT, file), 'utf8'))) {
      if (spec.startsWith('.')) visit(relative(ROOT, resolve(dirname(join(ROOT, file)), spec)));
      else reached.add(spec);
    }
  };
  visit(entry);
  return reached;
}

/** Groups of our files that import each other round a circle (Tarjan's strongly connected components). */
function circles(): string[][] {
  const graph = new Map<string, string[]>();
  for (const e of EDGES) if (e.to.startsWith('src/')) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      on.delete(w);
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}

describe('dependencies point one way', () => {
  it('reads every file of src (the checker sees the imports)', () => {
    expect(EDGES.length).toBeGreaterThan(300);
    expect(EDGES.some((e) => e.from === 'src/app.ts' && e.to === 'fastify')).toBe(true);
  });

  it('the domain imports no framework and no edge', () => {
    const wrong = violations(
      (e) =>
        inDomain(e.from) &&
        (FRAMEWORK(e.to) ||
          EDGE_DIRS.some((d) => e.to.startsWith(d)) ||
          isRouteFile(e.to) ||
          e.to === 'src/app.ts' ||
          e.to === 'src/server.ts'),
    );
    expect(wrong).toEqual([]);
  });

  it('no two files of src import each other, however far round (type imports included)', () => {
    expect(circles()).toEqual([]);
  });

  it('the write pipeline knows nothing of webhooks: what a change must also write is its hook', () => {
    expect(
      violations((e) => e.from.startsWith('src/resources/writes/') && e.to.startsWith('src/resources/webhooks/')),
    ).toEqual([]);
  });

  it('the transaction type is declared once, in db/', () => {
    const declared = filesUnder(SRC).filter((f) => /^export type Tx\b/m.test(readFileSync(f, 'utf8')));
    expect(declared.map((f) => relative(ROOT, f))).toEqual(['src/db/schema.ts']);
  });

  it('db and lib import only each other and the config', () => {
    const allowed = (to: string) => to.startsWith('src/db/') || to.startsWith('src/lib/') || to === 'src/config.ts';
    const wrong = violations(
      (e) =>
        (e.from.startsWith('src/db/') || e.from.startsWith('src/lib/')) && e.to.startsWith('src/') && !allowed(e.to),
    );
    expect(wrong).toEqual([]);
  });

  it('the limits know no resource', () => {
    expect(violations((e) => e.from.startsWith('src/limits/') && e.to.startsWith('src/resources/'))).toEqual([]);
  });

  it('nothing below the app imports the app, the server or the CLI', () => {
    const top = ['src/app.ts', 'src/server.ts'];
    const wrong = violations(
      (e) =>
        !top.includes(e.from) && !e.from.startsWith('src/cli/') && (top.includes(e.to) || e.to.startsWith('src/cli/')),
    );
    expect(wrong).toEqual([]);
  });

  it('a start loads no seed, faker, mail, Redis, database driver or MCP SDK it does not use', () => {
    const reached = staticClosure('src/server.ts');
    expect(reached.has('fastify')).toBe(true);
    const lazy = ['@faker-js/faker', 'nodemailer', 'ioredis', 'pg', 'better-sqlite3', 'src/seed/seed.service.ts'];
    expect(lazy.filter((name) => reached.has(name))).toEqual([]);
    expect([...reached].filter((name) => name.startsWith('@modelcontextprotocol/'))).toEqual([]);
  });

  it('the CLI loads the MCP server only when `venue-api mcp` runs', () => {
    const reached = staticClosure('src/cli/main.ts');
    expect(reached.has('src/cli/mcp.ts')).toBe(true);
    expect(
      [...reached].filter((name) => name.startsWith('@modelcontextprotocol/') || name.startsWith('src/mcp/')),
    ).toEqual([]);
    // …and it does load it from there (the check above would pass on a CLI without it).
    expect(EDGES.some((e) => e.from === 'src/cli/mcp.ts' && e.to === 'src/mcp/server.ts')).toBe(true);
  });

  it('the MCP server is a client of the API: no domain module, no app, no HTTP edge', () => {
    // src/mcp reaches the data only over HTTP, so every rule of the API applies to an agent.
    const allowed = (to: string) => to.startsWith('src/mcp/') || to.startsWith('src/lib/');
    expect(EDGES.some((e) => e.from.startsWith('src/mcp/'))).toBe(true);
    const wrong = violations(
      (e) => e.from.startsWith('src/mcp/') && (e.to.startsWith('src/') ? !allowed(e.to) : FRAMEWORK(e.to)),
    );
    expect(wrong).toEqual([]);
  });

  it('the MCP server calls the API through venue-api-client, with no HTTP client of its own', () => {
    expect(EDGES.some((e) => e.from.startsWith('src/mcp/') && e.to === 'venue-api-client')).toBe(true);
    const own = filesUnder(join(SRC, 'mcp'))
      .filter((file) => /\bfetch\(|node:https?\b|\bundici\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(own).toEqual([]);
  });

  it('every write goes through the write path: no bare .transaction() outside src/db/write.ts', () => {
    // CONVENTIONS 5: a transaction begun elsewhere could return before its group commit is durable.
    const wrong = filesUnder(SRC)
      .map((file) => relative(ROOT, file))
      .filter(
        (path) => path !== 'src/db/write.ts' && /\.transaction\(\s*\)/.test(readFileSync(join(ROOT, path), 'utf8')),
      );
    expect(wrong).toEqual([]);
    expect(readFileSync(join(SRC, 'db/write.ts'), 'utf8')).toMatch(/\.transaction\(\)\.execute/);
  });

  it('SQL is written in repositories and the db layer only', () => {
    const SQL = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql(<[^>]*>)?`/;
    const holdsSql = (path: string) => path.endsWith('.repo.ts') || path.startsWith('src/db/');
    const wrong = filesUnder(SRC)
      .map((file) => relative(ROOT, file))
      .filter((path) => !holdsSql(path) && SQL.test(readFileSync(join(ROOT, path), 'utf8')));
    expect(wrong).toEqual([]);
  });

  it('what differs between the engines is an Engine member: the domain never asks which engine it runs on', () => {
    const ASKS = /\.name\s*[!=]==?\s*['"](postgres|sqlite)['"]|['"](postgres|sqlite)['"]\s*[!=]==?\s*[\w.]*\.name\b/;
    const wrong = filesUnder(SRC)
      .map((file) => relative(ROOT, file))
      .filter(
        (path) => inDomain(path) && !path.startsWith('src/db/') && ASKS.test(readFileSync(join(ROOT, path), 'utf8')),
      );
    expect(wrong).toEqual([]);
  });
});
