import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * vitest's globalSetup: compiles src/ to dist/ (`npm run build`) once before any test, so the
 * processes the tests start (`node dist/bundle/server.js`, `bin/venue-api.js`) run what production
 * runs, never a stale build. The build is incremental (about 3 s when nothing changed).
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/**
 * `npm run build`: venue-api-client's dist/ first, its library and its command line (the MCP
 * server imports it, and the bundle takes it in), then tsc to dist/, then the bundle
 * (scripts/bundle.mjs) the processes run.
 */
function build(): void {
  for (const args of [
    [TSC, '-p', join('clients', 'typescript', 'tsconfig.json')],
    [TSC, '-p', join('clients', 'typescript', 'tsconfig.cli.json')],
    [TSC, '-p', 'tsconfig.build.json'],
    [join(ROOT, 'scripts', 'bundle.mjs')],
  ]) {
    const res = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
    if (res.status !== 0) {
      throw new Error(`npm run build failed (exit ${res.status ?? res.signal}):\n${res.stdout}${res.stderr}`);
    }
  }
}

/** Sources whose compiled file is missing: an incremental build does not re-emit a deleted output. */
function missingOutputs(): string[] {
  const sources = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.d.ts'),
  );
  return sources.filter((f) => !existsSync(join(ROOT, 'dist', f.replace(/\.ts$/, '.js'))));
}

export default function setup(): void {
  build();
  if (missingOutputs().length > 0) {
    rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
    build();
  }
}
