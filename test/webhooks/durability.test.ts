import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/db/index.ts';
import { type AppStorage, openAppStorage } from '../../src/storage.ts';
import { WebhookWorker } from '../../src/jobs/webhook-worker.ts';
import type { Clock } from '../../src/lib/time.ts';
import { personActor } from '../../src/resources/actor.model.ts';
import { createCustomer } from '../../src/resources/customers/customer.service.ts';
import { createEndpoint } from '../../src/resources/webhooks/webhook.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';
import { startReceiver, type Receiver } from './receiver.ts';

function workerOn(storage: Storage, clock: Clock) {
  return new WebhookWorker({
    store: storage,
    engine: storage.engine,
    clock,
    mail: { smtpUrl: null, mailFrom: 'test@example.com' },
    allowPrivate: true,
    retrySchedule: [5],
  });
}

describe.each(ENGINES)('webhook deliveries survive restarts on %s', (engine) => {
  let storage: TestStorage;
  let receiver: Receiver;
  let workspaceId: string;
  const clock = { now: Date.now() };
  const now: Clock = () => clock.now;
  beforeAll(async () => {
    storage = await freshStorage(engine);
    receiver = await startReceiver();
    workspaceId = (await createWorkspace(storage, now, { name: 'Hooks' })).id;
    const made = await createEndpoint(
      storage,
      now,
      { allowHttp: true, allowPrivate: true },
      { workspaceId, url: receiver.url(), mode: 'live', contactsMasked: false, createdBy: 'test' },
    );
    receiver.secret = made.secret;
  });
  afterAll(async () => {
    await receiver?.close();
    await storage?.drop();
  });

  const create = (store: AppStorage, n: number) => {
    const actor = personActor('operator', 'tester', { workspaceId, livemode: true }, now);
    const writes = store.writes;
    return Promise.all(
      Array.from({ length: n }, (_, i) => writes.run(actor, createCustomer, { first_name: `Customer ${i}` })),
    );
  };

  it('a delivery committed by a process that closed without delivering is delivered by the next one', async () => {
    const first = await openAppStorage(storage.url);
    await create(first, 1);
    await first.close();
    const second = await openAppStorage(storage.url);
    try {
      await workerOn(second, now).drain();
    } finally {
      await second.close();
    }
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.verified).toBe(true);
    receiver.received.length = 0;
  });

  it.runIf(engine === 'postgres')('two processes deliver each event exactly once', async () => {
    await create(storage, 40);
    const a = await openAppStorage(storage.url);
    const b = await openAppStorage(storage.url);
    try {
      await Promise.all([workerOn(a, now).drain(), workerOn(b, now).drain()]);
    } finally {
      await a.close();
      await b.close();
    }
    const ids = receiver.received.map((r) => r.id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    const rows = await storage.db.selectFrom('webhook_deliveries').select(['status', 'attempts']).execute();
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
  });
});
