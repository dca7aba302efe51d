import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The documents a newcomer reads stay true to the tree: the README stays a front door and the
 * bench's README a method with its latest results, every link and every file a document or a
 * comment names exists, ARCHITECTURE.md's SPEC table names real files, and every setting the
 * config reads is in docs/operations.md's "Configuration" table.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function filesUnder(dir: string, suffixes: string[]): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : filesUnder(path, suffixes);
    return suffixes.some((s) => entry.name.endsWith(s)) ? [path] : [];
  });
}

const DOCUMENTS = ['README.md', 'ARCHITECTURE.md', 'bench/README.md', ...filesUnder('docs', ['.md'])];
const SOURCES = ['src', 'test', 'bench', 'scripts'].flatMap((d) => filesUnder(d, ['.ts', '.mjs']));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsIn(path: string): Set<string> {
  return new Set([...read(path).matchAll(/^#+\s+(.*)$/gm)].map((m) => anchorOf(m[1]!)));
}

describe('the documents', () => {
  it('the README is a front door of at most 150 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(150);
  });

  it("the bench's README is its method and latest results, at most 200 lines", () => {
    expect(read('bench/README.md').split('\n').length).toBeLessThanOrEqual(200);
  });

  it('every kept bench run is a dated document of its engine, as the bench prints it', () => {
    const runs = filesUnder('bench/results', ['.json']).filter(
      (run) => !run.startsWith('bench/results/ab/') && !run.startsWith('bench/results/compare/'),
    );
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) {
      const engine = /^bench\/results\/\d{4}-\d{2}-\d{2}(?:-\d+)?-(sqlite|postgres)\.json$/.exec(run)?.[1];
      expect(engine, run).toBeDefined();
      const doc = JSON.parse(read(run));
      expect(doc.engine, run).toBe(engine);
      expect(doc.scenarios.map((s: { name: string }) => s.name)).toContain('get_one');
    }
  });

  it('every kept comparison of builds is a dated bench/ab.ts document of its engine', () => {
    for (const run of filesUnder('bench/results/ab', ['.json'])) {
      const engine = /^bench\/results\/ab\/\d{4}-\d{2}-\d{2}-[a-z-]+-(sqlite|postgres)\.json$/.exec(run)?.[1];
      expect(engine, run).toBeDefined();
      const doc = JSON.parse(read(run));
      expect([doc.tool, doc.engine], run).toEqual(['bench/ab.ts', engine]);
      for (const m of doc.measurements) expect(Object.keys(doc.variants), run).toContain(m.variant);
    }
  });

  it('every kept comparison of official runs is a dated document of its engine, each run as the bench printed it', () => {
    for (const run of filesUnder('bench/results/compare', ['.json'])) {
      const engine = /^bench\/results\/compare\/\d{4}-\d{2}-\d{2}-[a-z0-9-]+-(sqlite|postgres)\.json$/.exec(run)?.[1];
      expect(engine, run).toBeDefined();
      const doc = JSON.parse(read(run));
      expect([doc.tool, doc.engine], run).toEqual(['bench/run.ts', engine]);
      expect(Object.keys(doc.runs).sort(), run).toEqual(Object.keys(doc.builds).sort());
      for (const runs of Object.values(doc.runs) as { engine: string; scenarios: unknown[] }[][]) {
        for (const one of runs) expect(one.engine, run).toBe(engine);
      }
    }
  });

  it('every link inside the repository reaches a file, and a heading when it names one', () => {
    const broken: string[] = [];
    for (const doc of DOCUMENTS) {
      for (const m of read(doc).matchAll(/\]\(([^)\s]+)\)/g)) {
        const [path, anchor] = m[1]!.split('#') as [string, string | undefined];
        if (/^[a-z]+:/.test(path)) continue;
        const target = path === '' ? doc : normalize(join(dirname(doc), path));
        if (target.startsWith('..')) continue; // SPEC, DECISIONS, CONVENTIONS live beside the repository
        if (!existsSync(join(ROOT, target))) broken.push(`${doc}: ${m[1]}`);
        else if (anchor && target.endsWith('.md') && !anchorsIn(target).has(anchor)) broken.push(`${doc}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every file a document or a comment names exists', () => {
    const named = /(?<![\w/.-])((?:src|test|bench|scripts|clients|docs)\/[\w./-]+\.(?:ts|mjs|md|json|sh))/g;
    const missing: string[] = [];
    for (const file of [...DOCUMENTS, ...SOURCES]) {
      for (const m of read(file).matchAll(named)) {
        if (!existsSync(join(ROOT, m[1]!))) missing.push(`${file}: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("ARCHITECTURE.md's SPEC table names files that exist under src/", () => {
    const text = read('ARCHITECTURE.md');
    const table = text.slice(text.indexOf('## SPEC section'));
    const files = [...table.matchAll(/`([\w/.-]+\.ts)`/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThan(50);
    const missing = files.filter(
      (f) => !existsSync(join(ROOT, 'src', f)) && !SOURCES.some((s) => s.startsWith('src/') && s.endsWith(`/${f}`)),
    );
    expect(missing).toEqual([]);
  });

  it('every setting the config reads is in the table of docs/operations.md "Configuration"', () => {
    // Read as env.NAME, or by a helper given (env, 'NAME', …).
    const config = read('src/config.ts');
    const settings = new Set(
      [...config.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => (m[1] ?? m[2])!),
    );
    expect(settings.size).toBeGreaterThan(10);
    // The first cell of each row of a table: the settings it names.
    const ops = read('docs/operations.md');
    expect(ops).toContain('\n## Configuration\n');
    const section = ops.slice(ops.indexOf('\n## Configuration\n')).split(/\n## /)[1]!;
    const named = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|')[1]!);
    expect([...settings].filter((name) => !named.some((cell) => cell.includes(`\`${name}\``)))).toEqual([]);
  });

  it('no code or document points at the issue tracker, which is not in the repository', () => {
    const mentions = [...DOCUMENTS, ...SOURCES].filter((file) => /\bissue \d/i.test(read(file)));
    expect(mentions.map((file) => relative(ROOT, join(ROOT, file)))).toEqual([]);
  });
});
