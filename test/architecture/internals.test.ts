import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder, ROOT, SRC } from './source-files.ts';

/**
 * No private internals: nothing under src/ reads or sets a private or undocumented member of
 * Node or a dependency, or subclasses one of their classes; each breaks unseen on a minor
 * upgrade. Checked on the text of every file, comments left out (ARCHITECTURE.md "The house").
 */

/** The code without its comments (strings kept), lines where they were. */
function withoutComments(source: string): string {
  return source.replace(
    /('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    (match, string: string | undefined) => string ?? match.replace(/[^\n]/g, ' '),
  );
}

const FILES = filesUnder(SRC).map((path) => ({
  path: relative(ROOT, path),
  code: withoutComments(readFileSync(path, 'utf8')),
}));

/** Each match of `pattern` as `file:line: text`. */
function found(pattern: RegExp, keep: (match: RegExpMatchArray) => boolean = () => true): string[] {
  return FILES.flatMap(({ path, code }) =>
    [...code.matchAll(pattern)]
      .filter(keep)
      .map((m) => `${path}:${code.slice(0, m.index).split('\n').length}: ${m[0].trim()}`),
  );
}

/** Bases made to be subclassed, as their documentation shows. */
const DOCUMENTED_BASES = new Set(['Error', 'TypeError', 'RangeError', 'EventEmitter']);

/** Undocumented members of dependencies this code once reached for, without an underscore to tell them. */
const KNOWN_INTERNALS = /\.(?:parsedStatements|submittedNamedStatements|parser)\b/g;

describe('no private internals of Node or a dependency under src/', () => {
  it('no member whose name starts with an underscore is read or set', () => {
    expect([...found(/\??\.\s*_[A-Za-z]\w*/g), ...found(/\[\s*['"`]_[A-Za-z]\w*['"`]\s*\]/g)]).toEqual([]);
  });

  it('no undocumented member a dependency is known to have is reached', () => {
    expect(found(KNOWN_INTERNALS)).toEqual([]);
  });

  it('no module inside a package is imported by its path (lib/, dist/, internal/), only what the package exports', () => {
    expect(
      found(/\bfrom\s+['"](?!\.)(?:@[\w.-]+\/)?[\w.-]+\/(?:[\w.-]+\/)*(?:lib|dist|internal|src)\/[^'"]*['"]/g),
    ).toEqual([]);
  });

  it('no value is cast through unknown to a shape of its own, the way to a member its types hide', () => {
    expect(found(/\bas\s+unknown\s+as\s+\{/g)).toEqual([]);
  });

  it('no class extends a class of Node or a dependency, other than Error and EventEmitter', () => {
    const ours = new Set(FILES.flatMap(({ code }) => [...code.matchAll(/\bclass\s+(\w+)/g)].map((m) => m[1]!)));
    const extending = found(/\bclass\b(?:\s+\w+)?(?:\s*<[^>{]*>)?\s+extends\s+([\w.]+)/g, (m) => {
      const base = m[1]!;
      return base.includes('.') || !(ours.has(base) || DOCUMENTED_BASES.has(base));
    });
    expect(extending).toEqual([]);
  });
});
