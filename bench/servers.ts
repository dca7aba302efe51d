import { readFileSync } from 'node:fs';
import { sqlitePath } from '../src/db/database-url.ts';
import { median } from './load.ts';
import { type Child, startChild, startUntilReady } from './processes.ts';
import { log, SETTINGS } from './settings.ts';

/** The processes a bench run loads: the API as `npm start` runs it, and the ceilings of its engine (bench/ceilings/). */

/**
 * The API from the bundle, started SETTINGS.coldStarts times: `startMs` is the median time to
 * the first 200 from /ready; the last one stays up.
 */
export async function startApi(env: Record<string, string>): Promise<{ api: Child; startMs: number }> {
  const starts: number[] = [];
  let api: Child | undefined;
  for (let i = 0; i < SETTINGS.coldStarts; i++) {
    const started = await startUntilReady(['dist/bundle/server.js'], env);
    starts.push(started.readyMs);
    if (i < SETTINGS.coldStarts - 1) await started.child.stop();
    else api = started.child;
  }
  log(`API ready in ${starts.map((s) => s.toFixed(0)).join(', ')} ms`);
  return { api: api!, startMs: median(starts) };
}

export interface Ceilings {
  /** node:http answering one customer's bytes (bodyFile). */
  raw: Child;
  /** The engine's bare reads: a page, and one customer. */
  bare: Child;
  /** One row inserted a request (on PostgreSQL, `bare` serves it). */
  insert: Child;
  /** PostgreSQL: a create's rows in one transaction. */
  writeTx?: Child;
  /** PostgreSQL: an update's row, record, change-log row and event in one transaction. */
  updateTx?: Child;
  /** PostgreSQL with Redis: the read behind a limit's counters. */
  limits?: Child;
  names: { read: string; get: string; insert: string };
}

/**
 * Starts the ceilings of `databaseUrl`'s engine on it, each a process of its own added to
 * `children`, and says on stderr when the bare route's customer differs from the API's bytes
 * in `bodyFile`.
 */
export async function startCeilings(
  children: Child[],
  options: {
    engine: 'sqlite' | 'postgres';
    databaseUrl: string;
    workspaceId: string;
    poolSize: number;
    bodyFile: string;
    customerId: string;
    redisUrl: string | undefined;
  },
): Promise<Ceilings> {
  const { engine, databaseUrl, workspaceId } = options;
  const start = async (script: string, env: Record<string, string>) => {
    const child = await startChild([`bench/ceilings/${script}`], env);
    children.push(child);
    return child;
  };
  const raw = await start('raw-node-http.mjs', { BODY_FILE: options.bodyFile });
  let ceilings: Ceilings;
  if (engine === 'sqlite') {
    const path = sqlitePath(databaseUrl);
    ceilings = {
      raw,
      bare: await start('bare-fastify-sqlite.mjs', { DB_PATH: path, WORKSPACE_ID: workspaceId }),
      insert: await start('bare-fastify-insert.mjs', { DB_PATH: path, WORKSPACE_ID: `${workspaceId}_ceiling` }),
      names: { read: 'bare_fastify_sqlite', get: 'bare_fastify_sqlite_get', insert: 'bare_fastify_insert' },
    };
  } else {
    const pgEnv = { DATABASE_URL: databaseUrl, WORKSPACE_ID: workspaceId, POOL_SIZE: String(options.poolSize) };
    const bare = await start('bare-fastify-pg.mjs', pgEnv);
    ceilings = {
      raw,
      bare,
      insert: bare,
      writeTx: await start('bare-fastify-pg-write-tx.mjs', { ...pgEnv, WORKSPACE_ID: `${workspaceId}_ceiling` }),
      updateTx: await start('bare-fastify-pg-update-tx.mjs', pgEnv),
      ...(options.redisUrl
        ? { limits: await start('bare-fastify-pg-limits.mjs', { ...pgEnv, REDIS_URL: options.redisUrl }) }
        : {}),
      names: { read: 'bare_fastify_pg', get: 'bare_fastify_pg', insert: 'bare_fastify_pg_insert' },
    };
  }
  // The bare route answers the same customer: say so when its bytes differ from the API's.
  const bareOne = await (await fetch(`${ceilings.bare.url}/customers/${options.customerId}`)).text();
  const apiOne = JSON.stringify(JSON.parse(readFileSync(options.bodyFile, 'utf8')));
  if (JSON.stringify(JSON.parse(bareOne)) !== apiOne) log(`  ${ceilings.names.get}'s customer differs from the API's`);
  return ceilings;
}
