#!/usr/bin/env node
// The operator CLI (DECISIONS "Operator CLI"): a plain-JS shim so `npx venue-api` runs the
// compiled CLI in dist/ (made by `npm run build`, which `npm ci` runs through `prepare`)
// from any working directory.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/bundle/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('venue-api: no compiled build in dist/; run `npm run build` (or `npm ci`) first\n');
  process.exit(1);
}
const { runCli } = await import(main.href);
await runCli(process.argv);
