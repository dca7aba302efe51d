#!/usr/bin/env node
// The operator CLI (DECISIONS "Operator CLI"): a plain-JS shim so `npx venue-api` runs the
// TypeScript sources through tsx with no build step, from any working directory.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import(new URL('../src/cli/main.ts', import.meta.url).href);
await runCli(process.argv);
