import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openStorage } from '../src/db/index.ts';
import type { Db } from '../src/db/schema.ts';
import type { KeyCustomerReadTable } from '../src/db/tables/activity.ts';
import { markCustomersSent } from '../src/jobs/activity.repo.ts';
import { newId } from '../src/lib/ids.ts';

/**
 * `node --import tsx bench/flush.ts [--rounds 5]`: the activity flush's biggest write, 100,000
 * customers sent (a walk over a workspace), through `markCustomersSent` (statements compiled
 * once, src/db/prepared.ts PreparedInsertMany) and through the same upsert built by Kysely
 * for each batch of 512 rows, in turns, each in one transaction on a fresh SQLite file.
 * Reported per run: the wall time and the process's CPU time, in ms.
 */
const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const ROUNDS = at === -1 ? 5 : Number(args[at + 1]);
const ROWS = Number(process.env.FLUSH_ROWS ?? 100_000);

async function plain(db: Db, rows: KeyCustomerReadTable[]): Promise<void> {
  const sorted = rows
    .slice()
    .sort((a, b) => (a.key_id === b.key_id ? (a.customer_id < b.customer_id ? -1 : 1) : a.key_id < b.key_id ? -1 : 1));
  for (let i = 0; i < sorted.length; i += 512) {
    await db
      .insertInto('key_customer_reads')
      .values(sorted.slice(i, i + 512))
      .onConflict((oc) =>
        oc
          .columns(['key_id', 'customer_id'])
          .doUpdateSet((eb) => ({ last_seen_at: eb.ref('excluded.last_seen_at') }))
          .where((eb) => eb('excluded.last_seen_at', '>', eb.ref('key_customer_reads.last_seen_at'))),
      )
      .execute();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'venue-flush-'));
const storage = await openStorage(join(dir, 'flush.sqlite'));
try {
  await migrate(storage);
  const ways = { prepared: markCustomersSent, plain };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? (['prepared', 'plain'] as const) : (['plain', 'prepared'] as const);
    for (const way of order) {
      const key = newId('key');
      const rows = Array.from({ length: ROWS }, (_, i) => ({
        key_id: key,
        customer_id: newId('customer'),
        workspace_id: 'wsp_flush',
        last_seen_at: i,
      }));
      const cpu = process.cpuUsage();
      const t = performance.now();
      await storage.write((tx) => ways[way](tx, rows));
      const used = process.cpuUsage(cpu);
      console.log(
        JSON.stringify({
          round,
          way,
          rows: ROWS,
          wall_ms: Math.round(performance.now() - t),
          cpu_ms: Math.round((used.user + used.system) / 1000),
        }),
      );
    }
  }
} finally {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
