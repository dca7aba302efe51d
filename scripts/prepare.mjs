// npm's `prepare`: `npm ci` and `npm install` build dist/ through it. npx also runs it, each
// time it links this package into its own cache to reach the `venue-api` bin; after
// `npm prune --omit=dev` the build tools are gone, so a build there fails, npx gives up and
// leaves its cache half made. A pruned install keeps the dist/ it was built with instead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url);
const require = createRequire(new URL('package.json', root));

function resolvable(name) {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

if (!resolvable('typescript') || !resolvable('esbuild')) {
  if (existsSync(new URL('dist/bundle/cli/main.js', root))) process.exit(0);
  process.stderr.write('venue-api: no build tools (pruned?) and no dist/ to keep; run `npm ci` first\n');
  process.exit(1);
}
const built = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
process.exit(built.status ?? 1);
