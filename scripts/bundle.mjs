// Bundles tsc's output (dist/) into dist/bundle/: what `npm start`, the bin and the tests run.
// Loading ~1,200 module files was most of a cold start (bench/README.md), so one bundle per
// entry, code-split for what loads on demand (the seed and faker, nodemailer, ioredis, pg).
// better-sqlite3 stays outside: it loads a native addon by path; pg and ioredis for tracing (below).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
// venue_api_build_info: the package's version and the commit built (none outside a git clone).
const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
// BUILD_COMMIT names it where there is no git clone (the Dockerfile's COMMIT argument).
let commit = process.env.BUILD_COMMIT || 'unknown';
if (!process.env.BUILD_COMMIT) {
  try {
    commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {}
}
// Built beside and swapped in at the end, so a process started meanwhile finds a whole bundle.
rmSync(`${root}dist/bundle.next`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { server: 'dist/server.js', 'cli/main': 'dist/cli/main.js' },
  outdir: 'dist/bundle.next',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // Whitespace and syntax only: names stay, so a stack trace still reads; less to parse at start.
  minifyWhitespace: true,
  minifySyntax: true,
  // pg and ioredis stay outside too, so OpenTelemetry's instrumentations patch them as they load
  // (docs/operations.md "Tracing"); the SDK and @fastify/otel load from node_modules only when on.
  external: ['better-sqlite3', 'pg-native', 'pg', 'ioredis', '@opentelemetry/*', '@fastify/otel'],
  // CommonJS dependencies call require() for Node's own modules; an ES bundle has none.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  define: { __BUILD_VERSION__: JSON.stringify(version), __BUILD_COMMIT__: JSON.stringify(commit) },
  logLevel: 'warning',
});
// /docs' browser bundle, copied from the development dependency: production needs no @scalar package.
const scalarRoot = dirname(dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')));
const scalarVersion = JSON.parse(readFileSync(join(scalarRoot, 'package.json'), 'utf8')).version;
mkdirSync(`${root}dist/bundle.next/scalar`, { recursive: true });
copyFileSync(join(scalarRoot, 'dist/browser/standalone.js'), `${root}dist/bundle.next/scalar/scalar-${scalarVersion}.js`);
rmSync(`${root}dist/bundle`, { recursive: true, force: true });
renameSync(`${root}dist/bundle.next`, `${root}dist/bundle`);
