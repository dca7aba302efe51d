import type { Storage } from './db/index.ts';
import { anyWorkspace, deleteWorkspaceRows, insertMeta, readMeta, updateMeta } from './demo.repo.ts';
import { CURRENT_VERSION } from './http/request-context.ts';
import { randomBase62 } from './lib/ids.ts';
import type { Clock } from './lib/time.ts';
import { createKey } from './resources/keys/key.service.ts';
import { addStaff, insertNewWorkspace } from './resources/workspaces/workspace.service.ts';
// The seeder pulls in faker: loaded only when a demo is actually made (finishDemo).
import type { seedWorkspace } from './seed/seed.service.ts';

/**
 * The first start: on an empty database `npm start` makes a demo workspace with seeded
 * data, an owner who can sign in and a test key, so a newcomer can call the API at once.
 * What was made is recorded in `meta`; later starts only point back at it, because a
 * key's secret is shown once and never again (SPEC "Authentication" 4).
 *
 * The record is written first, as `pending`, in the transaction that makes the workspace,
 * and marked `complete` once the seed, the owner and the key exist. A start that finds it
 * pending (and holds the job lock, so nobody is making it now) knows an earlier start died
 * half way: it redoes the demo in the same workspace, first removing whatever that start
 * left. Redoing rather than finishing, because the seed runs in several transactions and
 * cannot resume where it stopped, and the key's secret was never shown, so nobody can be
 * using anything it made.
 */
export const DEMO_META = 'demo';
export const DEMO_CUSTOMERS = 300;

export interface DemoRecord {
  /** Absent in records written before demos were made in two steps: those are complete. */
  status?: 'complete';
  workspace_id: string;
  workspace_name: string;
  owner_email: string;
  key_id: string;
  created_at: string;
}

export interface PendingDemo {
  status: 'pending';
  workspace_id: string;
  workspace_name: string;
  created_at: string;
}

export type DemoOutcome =
  | { kind: 'created'; demo: DemoRecord; password: string; secret: string }
  | { kind: 'existing'; demo: DemoRecord }
  /** Another process is making it right now; it prints the sign-in and the key. */
  | { kind: 'pending'; demo: PendingDemo }
  | { kind: 'none' };

export interface DemoDeps {
  /** The seeder (tests put one in that fails half way, as a crash would). */
  seed?: typeof seedWorkspace;
}

/** Every table a demo's making writes a row of the workspace into, children first. */
const DEMO_TABLES = [
  'customer_tags',
  'customer_lists',
  'tickets',
  'gift_cards',
  'orders',
  'bookings',
  'customers',
  'tags',
  'lists',
  'events',
  'packages',
  'activities',
  'venues',
  'api_keys',
  'staff',
] as const;

async function readDemo(storage: Storage): Promise<DemoRecord | PendingDemo | null> {
  const value = await readMeta(storage.db, DEMO_META);
  return value ? (JSON.parse(value) as DemoRecord | PendingDemo) : null;
}

async function startDemo(storage: Storage, clock: Clock): Promise<PendingDemo> {
  return storage.write(async (tx) => {
    const ws = await insertNewWorkspace(tx, clock, { name: 'Demo Venues' });
    const pending: PendingDemo = {
      status: 'pending',
      workspace_id: ws.id,
      workspace_name: ws.name,
      created_at: ws.created_at,
    };
    await insertMeta(tx, DEMO_META, JSON.stringify(pending));
    return pending;
  });
}

/** What an interrupted start left of the demo workspace, removed in one transaction. */
async function clearDemo(storage: Storage, workspaceId: string): Promise<void> {
  await storage.write((tx) => deleteWorkspaceRows(tx, DEMO_TABLES, workspaceId));
}

async function finishDemo(storage: Storage, clock: Clock, pending: PendingDemo, deps: DemoDeps): Promise<DemoOutcome> {
  const ws = pending.workspace_id;
  const seed = deps.seed ?? (await import('./seed/seed.service.ts')).seedWorkspace;
  await seed(storage, { workspaceId: ws, customers: DEMO_CUSTOMERS, now: clock() });
  const password = randomBase62(16);
  const owner = await addStaff(storage, clock, {
    workspaceId: ws,
    email: 'owner@example.com',
    name: 'Demo Owner',
    role: 'owner',
    password,
  });
  const { key, secret } = await createKey(storage, clock, {
    workspaceId: ws,
    name: 'Demo test key',
    mode: 'test',
    access: 'read_write',
    createdBy: owner.email,
    agreedBy: owner.email,
  });
  const demo: DemoRecord = {
    status: 'complete',
    workspace_id: ws,
    workspace_name: pending.workspace_name,
    owner_email: owner.email,
    key_id: key.id,
    created_at: pending.created_at,
  };
  await storage.write((tx) => updateMeta(tx, DEMO_META, JSON.stringify(demo)));
  return { kind: 'created', demo, password, secret };
}

/**
 * Makes the demo when the database has no workspace at all, or redoes one an earlier start
 * left pending; otherwise reports the demo made earlier, if any. Under the job lock, so
 * two processes starting together on one PostgreSQL make one demo between them.
 */
export async function prepareDemo(storage: Storage, clock: Clock, deps: DemoDeps = {}): Promise<DemoOutcome> {
  const done = await storage.engine.withJobLock(storage.db, 'first-start-demo', async (): Promise<DemoOutcome> => {
    const existing = await readDemo(storage);
    if (existing?.status === 'pending') {
      await clearDemo(storage, existing.workspace_id);
      return finishDemo(storage, clock, existing, deps);
    }
    if (existing) return { kind: 'existing', demo: existing };
    if (await anyWorkspace(storage.db)) return { kind: 'none' };
    return finishDemo(storage, clock, await startDemo(storage, clock), deps);
  });
  if (done.ran) return done.value!;
  // Another process holds the lock: it is making the demo (or finishing one) right now.
  const existing = await readDemo(storage);
  if (!existing) return { kind: 'none' };
  return existing.status === 'pending' ? { kind: 'pending', demo: existing } : { kind: 'existing', demo: existing };
}

/** What the first start prints: where the API is, how to sign in, and a call that works. */
export function demoBanner(outcome: DemoOutcome, url: string): string {
  const line = '-'.repeat(72);
  if (outcome.kind === 'none') return `Venue API listening at ${url}`;
  const newKey = `npx venue-api keys create --workspace ${outcome.demo.workspace_id} --name "My key" --mode test --access read_write`;
  if (outcome.kind === 'pending') {
    const { demo } = outcome;
    return [
      line,
      `Venue API listening at ${url}`,
      `Demo workspace "${demo.workspace_name}" (${demo.workspace_id}) is being made by another process, which prints its sign-in and test key.`,
      `Or make a key yourself once it is done:`,
      `  ${newKey}`,
      line,
    ].join('\n');
  }
  const { demo } = outcome;
  if (outcome.kind === 'existing') {
    return [
      line,
      `Venue API listening at ${url}`,
      `Demo workspace "${demo.workspace_name}" (${demo.workspace_id}), owner ${demo.owner_email}.`,
      `Developer console: ${url}/console (sign in as ${demo.owner_email}; a lost password is set again with`,
      `  npx venue-api staff set-password --workspace ${demo.workspace_id} --email ${demo.owner_email} --password NEW)`,
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
    `  Owner:     ${demo.owner_email} / ${outcome.password}   (staff login, role owner)`,
    `  Console:   ${url}/console   (sign in there as the owner to manage keys)`,
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
