/**
 * The server time of a key's page in the console on a key with 100,000 changes (10,000
 * customers x 10 changes), on SQLite and PostgreSQL: the first page and a deep one, before and
 * after an undo job has reverted half of them (bench/README.md "Key page").
 *
 *   node --import tsx bench/key-page.ts [--engines sqlite,postgres] [--customers 10000]
 *
 * Rows are written straight into the tables (the changes as a key's writes record them), the
 * undo runs as the console's job does, and the page is asked for through `app.inject` signed
 * in, so the figure is the server's time without a network. Prints one JSON line per engine.
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { ChangeLogTable } from '../src/db/tables/change.ts';
import { UndoJobWorker } from '../src/jobs/undo-jobs.ts';
import { insertChangeRows } from '../src/resources/changes/change-log.repo.ts';
import { changeRow } from '../src/resources/changes/change.model.ts';
import { requestUndo } from '../src/resources/changes/undo-job.service.ts';
import { ConsoleClient } from '../test/console/client.ts';
import { makeTestApp } from '../test/helpers/app.ts';
import { insertCustomer } from '../test/helpers/fixtures.ts';
import { addStaffWithHash, cheapPasswordHash } from '../test/helpers/staff.ts';

const { values: args } = parseArgs({
  options: {
    engines: { type: 'string', default: 'sqlite,postgres' },
    customers: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '15' },
    /** Leave the database behind (its URL is printed) to EXPLAIN the page's statements on it. */
    keep: { type: 'boolean', default: false },
  },
});
const CUSTOMERS = Number(args.customers);
const PER_CUSTOMER = 10;
const RUNS = Number(args.runs);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)]! * 10) / 10;
}

async function one(engine: 'sqlite' | 'postgres') {
  const t0 = Date.parse('2026-06-01T00:00:00.000Z');
  const t = makeTestApp(engine, { clock: t0 + CUSTOMERS * PER_CUSTOMER + 60_000 });
  const app = await t;
  const { storage, workspaceId } = app;
  const keyId = app.keys.live.id;
  const author = { kind: 'key' as const, id: keyId, workspaceId, livemode: true, requestId: 'req_bench' };

  // Customer i's ten changes are at t0 + i*10 + j: the first half of the customers changed
  // first, so an undo of the changes up to the midpoint reverts those customers whole.
  const seedStart = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < CUSTOMERS; i++) {
    const c = await insertCustomer(storage.db, { workspaceId }, { first_name: `n${PER_CUSTOMER}`, version: '11' });
    ids.push(c.id);
  }
  const rows: ChangeLogTable[] = [];
  for (let i = 0; i < CUSTOMERS; i++)
    for (let j = 0; j < PER_CUSTOMER; j++)
      rows.push(
        changeRow(author, {
          at: t0 + i * PER_CUSTOMER + j,
          action: 'customer.update',
          customerId: ids[i]!,
          version: j + 2,
          before: { first_name: `n${j}` },
          after: { first_name: `n${j + 1}` },
        }),
      );
  for (let i = 0; i < rows.length; i += 10_000)
    await storage.db.transaction().execute((tx) => insertChangeRows(tx, storage.engine, rows.slice(i, i + 10_000)));
  if (engine === 'postgres') await sql`ANALYZE`.execute(storage.db);
  const seedMs = Math.round(performance.now() - seedStart);

  await addStaffWithHash(storage, app.clock.fn, {
    workspaceId,
    email: 'owner@example.com',
    name: 'Olive Owner',
    role: 'owner',
    hash: cheapPasswordHash('right password'),
  });
  const browser = new ConsoleClient(app.app);
  await browser.signIn('owner@example.com', 'right password');

  const time = async (url: string) => {
    const ms: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const start = performance.now();
      const res = await browser.get(url);
      ms.push(performance.now() - start);
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    }
    return median(ms);
  };
  const pages = async (rows: number) => {
    const first = await time(`/console/keys/${keyId}`);
    // The page 4,999 of 5,000 before the undo; and the middle page, the farthest from either end.
    const deepPage = Math.max(2, Math.floor((CUSTOMERS * PER_CUSTOMER) / 20) - 1);
    const deep = await time(`/console/keys/${keyId}?page=${deepPage}`);
    const shown = /<caption class="hint">([^<]+) change\(s\), newest first/.exec(
      (await browser.get(`/console/keys/${keyId}`)).body,
    )?.[1];
    const middlePage = Math.max(1, Math.ceil(rows / 20 / 2));
    const middle = await time(`/console/keys/${keyId}?page=${middlePage}`);
    return { shown, first_ms: first, deep_page: deepPage, deep_ms: deep, middle_page: middlePage, middle_ms: middle };
  };

  const before = await pages(CUSTOMERS * PER_CUSTOMER);

  // An undo of the first half, as the console queues it (until the midpoint), run to the end.
  const mid = t0 + (CUSTOMERS / 2) * PER_CUSTOMER - 1;
  const saved = app.clock.now;
  app.clock.now = mid;
  await requestUndo(
    storage,
    { id: keyId, workspaceId },
    { kind: 'staff', id: 'staff_bench' },
    { kind: 'operator', name: 'bench' },
    app.clock.fn,
  );
  app.clock.now = saved;
  const undoStart = performance.now();
  const worker = new UndoJobWorker({ store: storage, clock: app.clock.fn });
  await worker.drain();
  await worker.stop();
  const undoMs = Math.round(performance.now() - undoStart);
  // Read at once, as a person watching the job would, then once PostgreSQL's statistics know the undo rows.
  const after = await pages(CUSTOMERS * PER_CUSTOMER * 1.5);
  let analyzed: Awaited<ReturnType<typeof pages>> | undefined;
  if (engine === 'postgres') {
    await sql`ANALYZE`.execute(storage.db);
    analyzed = await pages(CUSTOMERS * PER_CUSTOMER * 1.5);
  }

  const counts = await storage.db
    .selectFrom('change_log')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('reverts', 'is not', null)
    .executeTakeFirstOrThrow();
  if (args.keep) {
    await app.app.close();
    await storage.close();
    console.error(`kept: ${storage.url} key ${keyId}`);
  } else await app.close();
  return {
    engine,
    changes: CUSTOMERS * PER_CUSTOMER,
    seed_ms: seedMs,
    undo_ms: undoMs,
    undo_rows: Number(counts.n),
    before_undo: before,
    after_undo: after,
    ...(analyzed ? { after_undo_analyzed: analyzed } : {}),
  };
}

for (const engine of args.engines.split(',') as ('sqlite' | 'postgres')[])
  console.log(JSON.stringify(await one(engine)));
