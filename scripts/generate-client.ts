import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrate } from '../src/db/index.ts';
import { openAppStorage } from '../src/storage.ts';
import { generateClientFiles } from './client-types.ts';

/**
 * `npm run client:generate`: serves /openapi.json from the app (on a throwaway SQLite
 * database) and writes venue-api-client's generated types from it. Commit the result; the
 * test suite fails while the committed files differ from what this would write.
 */
const OUT = new URL('../clients/typescript/src/generated/', import.meta.url);

const dir = mkdtempSync(join(tmpdir(), 'venue-client-generate-'));
try {
  const storage = await openAppStorage(join(dir, 'venue.sqlite'));
  await migrate(storage);
  const { app } = await buildApp(loadConfig({ BASE_URL: '', LOG_LEVEL: 'warn' }), {
    storage,
    logger: false,
  });
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
  const files = await generateClientFiles(res.json() as OpenAPI3);
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(new URL(name, OUT), text);
    console.log(`wrote clients/typescript/src/generated/${name}`);
  }
  await app.close();
  await storage.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
