import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './source-files.ts';

/**
 * The production install is what the bundle loads from node_modules and nothing else: every
 * other package is inside dist/bundle/, so it is a development dependency (docs/operations.md
 * "What a production install holds"). Read from the built bundle, as the server runs it.
 */
const BUNDLE = join(ROOT, 'dist/bundle');

function bundleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'scalar' ? [] : bundleFiles(path); // /docs' browser script
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Bare specifiers the bundle imports or requires at run time (a require inside a string is not one). */
function loadedPackages(): Set<string> {
  const builtins = new Set(builtinModules);
  const pattern = /(?<![\w."'`])(?:from\s*|import\s*\(?\s*|require\()"([@a-z0-9][\w@./-]*)"/g;
  const found = new Set<string>();
  for (const file of bundleFiles(BUNDLE)) {
    for (const match of readFileSync(file, 'utf8').matchAll(pattern)) {
      const specifier = match[1]!;
      if (specifier.startsWith('node:')) continue;
      if (builtins.has(packageOf(specifier))) continue;
      found.add(packageOf(specifier));
    }
  }
  return found;
}

describe('production dependencies', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const loaded = loadedPackages();

  it('are exactly the packages the bundle loads from node_modules', () => {
    // The bundle's own externals are found, so an empty scan cannot pass.
    expect(loaded).toContain('better-sqlite3');
    expect([...loaded].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });
});
