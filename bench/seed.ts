import { randomBytes } from 'node:crypto';
import { migrate, openStorage } from '../src/db/index.ts';
import { createKey } from '../src/resources/keys/key.service.ts';
import { createWorkspace } from '../src/resources/workspaces/workspace.service.ts';
import { seedWorkspace, type SeedCounts } from '../src/seed/seed.service.ts';
import { pgAdmin } from './pg-admin.ts';

/** The benches' data: a seeded workspace and its key, a database of its own, the customers a scenario needs. */

/** Far above any rate a bench reaches, so no request is refused for its rate. */
const UNLIMITED = 1_000_000_000;

export interface BenchData {
  workspaceId: string;
  /** A live read-and-write key's secret. */
  secret: string;
  /** The workspace's live customers. */
  ids: string[];
  counts: SeedCounts;
  seedSeconds: number;
}

/** Migrates the database, then a workspace named `name` with `customers` customers and one live key, both with no limits to speak of. */
export async function seedBench(
  databaseUrl: string,
  name: string,
  customers: number,
  onProgress?: (done: number, total: number, seconds: number) => void,
): Promise<BenchData> {
  const storage = await openStorage(databaseUrl);
  try {
    await migrate(storage);
    const ws = await createWorkspace(storage, Date.now, { name, requestsPerMinute: UNLIMITED });
    const started = Date.now();
    const counts = await seedWorkspace(storage, {
      workspaceId: ws.id,
      customers,
      ...(onProgress ? { onProgress: (done, total) => onProgress(done, total, (Date.now() - started) / 1000) } : {}),
    });
    const seedSeconds = (Date.now() - started) / 1000;
    const { secret } = await createKey(storage, Date.now, {
      workspaceId: ws.id,
      name: name.toLowerCase(),
      mode: 'live',
      access: 'read_write',
      limits: {
        requests_per_minute: UNLIMITED,
        requests_per_day: UNLIMITED,
        writes_per_minute: UNLIMITED,
        writes_per_day: UNLIMITED,
        removals_per_day: UNLIMITED,
      },
    });
    const rows = await storage.db
      .selectFrom('customers')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .where('livemode', '=', 1)
      .where('deleted_at', 'is', null)
      .execute();
    return { workspaceId: ws.id, counts, seedSeconds, secret, ids: rows.map((r) => r.id) };
  } finally {
    await storage.close();
  }
}

/** A new PostgreSQL database on `server` for one run, and how to drop it. */
export async function newPgDatabase(server: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `venue_bench_${randomBytes(6).toString('hex')}`;
  await pgAdmin(server, `create database ${name}`);
  return {
    url: `${server}/${name}`,
    drop: async () => {
      await pgAdmin(server, `drop database if exists ${name} with (force)`);
    },
  };
}

/** The workspace's live customers now, as a walk of the list finds them. */
export async function liveCustomers(databaseUrl: string, workspaceId: string): Promise<number> {
  const storage = await openStorage(databaseUrl);
  try {
    const row = await storage.db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('livemode', '=', 1)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await storage.close();
  }
}

/** Up to `n` customers spread over the list, each with the ETag the API answers for it now. */
export async function readVersions(
  api: string,
  headers: Record<string, string>,
  ids: string[],
  n: number,
): Promise<{ id: string; etag: string }[]> {
  const step = Math.max(1, Math.floor(ids.length / n));
  const chosen = ids.filter((_, i) => i % step === 0).slice(0, n);
  const out: { id: string; etag: string }[] = [];
  for (let i = 0; i < chosen.length; i += 16) {
    await Promise.all(
      chosen.slice(i, i + 16).map(async (id) => {
        const res = await fetch(`${api}/customers/${id}`, { headers });
        await res.arrayBuffer();
        const etag = res.headers.get('etag');
        if (!res.ok || !etag) throw new Error(`GET /customers/${id}: ${res.status}, ETag ${etag}`);
        out.push({ id, etag });
      }),
    );
  }
  return out;
}
