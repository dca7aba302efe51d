import type { Storage } from './db/index.ts';
import { CURRENT_VERSION } from './http/request-context.ts';
import { randomBase62 } from './lib/ids.ts';
import type { Clock } from './lib/time.ts';
import { createKey } from './resources/keys/key.service.ts';
import { addStaff, createWorkspace } from './resources/workspaces/workspace.service.ts';
import { seedWorkspace } from './seed/seed.service.ts';

/**
 * The first start: on an empty database `npm start` makes a demo workspace with seeded
 * data, an owner who can sign in and a test key, so a newcomer can call the API at once.
 * What was made is recorded in `meta`; later starts only point back at it, because a
 * key's secret is shown once and never again (SPEC "Authentication" 4).
 */
export const DEMO_META = 'demo';
export const DEMO_CUSTOMERS = 300;

export interface DemoRecord {
  workspace_id: string;
  workspace_name: string;
  owner_email: string;
  key_id: string;
  created_at: string;
}

export type DemoOutcome =
  | { kind: 'created'; demo: DemoRecord; password: string; secret: string }
  | { kind: 'existing'; demo: DemoRecord }
  | { kind: 'none' };

async function readDemo(storage: Storage): Promise<DemoRecord | null> {
  const row = await storage.db.selectFrom('meta').select('value').where('name', '=', DEMO_META).executeTakeFirst();
  return row ? (JSON.parse(row.value) as DemoRecord) : null;
}

async function createDemo(storage: Storage, clock: Clock): Promise<DemoOutcome> {
  const { db } = storage;
  const ws = await createWorkspace(db, clock, { name: 'Demo Venues' });
  await seedWorkspace(storage, { workspaceId: ws.id, customers: DEMO_CUSTOMERS, now: clock() });
  const password = randomBase62(16);
  const owner = await addStaff(db, clock, { workspaceId: ws.id, email: 'owner@example.com', name: 'Demo Owner', role: 'owner', password });
  const { key, secret } = await createKey(db, clock, {
    workspaceId: ws.id,
    name: 'Demo test key',
    mode: 'test',
    access: 'read_write',
    createdBy: owner.email,
    agreedBy: owner.email,
  });
  const demo: DemoRecord = {
    workspace_id: ws.id,
    workspace_name: ws.name,
    owner_email: owner.email,
    key_id: key.id,
    created_at: new Date(clock()).toISOString(),
  };
  await db.insertInto('meta').values({ name: DEMO_META, value: JSON.stringify(demo) }).execute();
  return { kind: 'created', demo, password, secret };
}

/**
 * Makes the demo when the database has no workspace at all; otherwise reports the demo
 * made earlier, if any. Under the job lock, so two processes starting together on one
 * PostgreSQL make one demo between them.
 */
export async function prepareDemo(storage: Storage, clock: Clock): Promise<DemoOutcome> {
  const done = await storage.engine.withJobLock(storage.db, 'first-start-demo', async (): Promise<DemoOutcome> => {
    const existing = await readDemo(storage);
    if (existing) return { kind: 'existing', demo: existing };
    const any = await storage.db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
    if (any) return { kind: 'none' };
    return createDemo(storage, clock);
  });
  if (done.ran) return done.value!;
  // Another process is making it right now; by our next start it will be recorded.
  const existing = await readDemo(storage);
  return existing ? { kind: 'existing', demo: existing } : { kind: 'none' };
}

/** What the first start prints: where the API is, how to sign in, and a call that works. */
export function demoBanner(outcome: DemoOutcome, url: string): string {
  const line = '-'.repeat(72);
  if (outcome.kind === 'none') return `Venue API listening at ${url}`;
  const { demo } = outcome;
  const newKey = `npx venue-api keys create --workspace ${demo.workspace_id} --name "My key" --mode test --access read_write`;
  if (outcome.kind === 'existing') {
    return [
      line,
      `Venue API listening at ${url}`,
      `Demo workspace "${demo.workspace_name}" (${demo.workspace_id}), owner ${demo.owner_email}.`,
      `Its test key ${demo.key_id} was printed at the first start (${demo.created_at}); a secret is shown only once.`,
      `Make a new key with:`,
      `  ${newKey}`,
      line,
    ].join('\n');
  }
  return [
    line,
    `Venue API listening at ${url}`,
    `Made a demo workspace "${demo.workspace_name}" (${demo.workspace_id}) with ${DEMO_CUSTOMERS} seeded customers.`,
    `  Sign in:   ${demo.owner_email} / ${outcome.password}`,
    `  Test key:  ${outcome.secret}   (${demo.key_id}; shown this once, store it now)`,
    `Try it:`,
    `  curl -s -H "Authorization: Bearer ${outcome.secret}" -H "Service-Version: ${CURRENT_VERSION}" "${url}/customers?limit=2"`,
    `Later starts cannot show this secret again; make another with:`,
    `  ${newKey}`,
    line,
  ].join('\n');
}

/**
 * The base URL people should call: BASE_URL when it is a full URL, else where this
 * process listens (with PORT=0 the real port is known only once listening).
 */
export function listeningUrl(baseUrl: string, host: string, boundPort: number): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    url = new URL(`http://${shown}:${boundPort}`);
  }
  if (url.port === '0') url.port = String(boundPort);
  return url.toString().replace(/\/$/, '');
}
