import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openStorage } from '../src/db/index.ts';
import { WebhookWorker } from '../src/jobs/webhook-worker.ts';
import { recordEvents } from '../src/resources/webhook-events/event.repo.ts';
import { createEndpoint } from '../src/resources/webhooks/webhook.service.ts';
import { createWorkspace } from '../src/resources/workspaces/workspace.service.ts';

/**
 * `node --import tsx bench/webhook-drain.ts [stub|http]`: the delivery worker alone, with no
 * API load: DRAIN_EVENTS (5,000) events due at once for one endpoint, drained by one worker,
 * and the CPU time this process spent per delivery (user + system) and the wall time. `stub`
 * replaces the attempt with an answer at once, so what is left is the worker's own work and
 * its SQL; `http` (the default) posts to a receiver answering 204 in this same process, so
 * its CPU counts too, and prints how many connections the receiver saw. DRAIN_DATABASE_URL:
 * a database to use (a fresh SQLite file by default); it gets a new workspace each run.
 */
const mode = process.argv[2] ?? 'http';
const N = Number(process.env.DRAIN_EVENTS ?? 5_000);
const dir = mkdtempSync(join(tmpdir(), 'venue-drain-'));
const storage = await openStorage(process.env.DRAIN_DATABASE_URL ?? join(dir, 'drain.sqlite'));
let connections = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
receiver.on('connection', () => connections++);
try {
  await migrate(storage);
  const workspaceId = (await createWorkspace(storage, Date.now, { name: 'Drain' })).id;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const open = { allowHttp: true, allowPrivate: true };
  await createEndpoint(storage, Date.now, open, {
    workspaceId,
    url,
    mode: 'live',
    contactsMasked: false,
    createdBy: 'bench',
  });
  const object = { id: 'cus_drain', object: 'customer', first_name: 'Drain', email: 'drain@example.com', tags: [] };
  const at = Date.now();
  await storage.write((tx) =>
    recordEvents(
      tx,
      storage.engine,
      { workspaceId, livemode: true },
      Array.from({ length: N }, () => ({ type: 'customer.created', at, object })),
    ),
  );
  const worker = new WebhookWorker({
    store: storage,
    engine: storage.engine,
    clock: Date.now,
    mail: { smtpUrl: null, mailFrom: 'bench@example.com' },
    allowPrivate: true,
    retrySchedule: [5],
    ...(mode === 'stub' ? { send: async () => ({ ok: true, status: 204, error: null }) } : {}),
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  await worker.drain();
  const used = process.cpuUsage(cpu);
  console.log(
    JSON.stringify({
      mode,
      engine: storage.engine.name,
      deliveries: N,
      wall_ms: Math.round(performance.now() - started),
      cpu_us_per_delivery: Math.round((used.user + used.system) / N),
      ...(mode === 'stub' ? {} : { connections }),
    }),
  );
} finally {
  receiver.close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
