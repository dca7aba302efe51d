import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditActor } from '../../src/resources/audit/audit.model.ts';
import { recordEvents } from '../../src/resources/webhook-events/event.repo.ts';
import { outbox } from '../../src/resources/webhook-events/outbox-signal.ts';
import { createEndpoint, resendFailedSince } from '../../src/resources/webhooks/webhook.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * "Resend failed deliveries since" (docs/webhooks.md "Recovery"): only the endpoint's failed
 * deliveries made at or after the instant become due, in one transaction with one audit entry.
 */
describe.each(ENGINES)('resending failed deliveries since an instant on %s', (engine) => {
  let storage: TestStorage;
  const clock = { now: Date.UTC(2026, 9, 8, 12), fn: () => clock.now };
  const HOUR = 3_600_000;
  const by: AuditActor = { kind: 'operator', name: 'ops person' };
  let home: string;
  let other: string;
  let mine: string;
  let sibling: string;
  let elsewhere: string;

  const endpoint = async (workspaceId: string, path: string) =>
    (
      await createEndpoint(
        storage,
        clock.fn,
        { allowHttp: true, allowPrivate: true },
        { workspaceId, url: `http://127.0.0.1:9${path}`, mode: 'live', contactsMasked: false, createdBy: 'test' },
      )
    ).endpoint.id;

  /**
   * One event an hour, 4 hours ago to now, in each workspace; every delivery failed but those
   * at -2 h and -1 h. And half an hour ago, one too large to send.
   */
  beforeAll(async () => {
    storage = await freshStorage(engine);
    home = (await createWorkspace(storage, clock.fn, { name: 'Home' })).id;
    other = (await createWorkspace(storage, clock.fn, { name: 'Other' })).id;
    mine = await endpoint(home, '/mine');
    sibling = await endpoint(home, '/sibling');
    elsewhere = await endpoint(other, '/elsewhere');
    for (const workspaceId of [home, other]) {
      const made = [4, 3, 2, 1, 0].map((h) => ({
        type: 'customer.created',
        at: clock.now - h * HOUR,
        object: { id: `cus_${h}` },
      }));
      await storage.write((tx) => recordEvents(tx, storage.engine, { workspaceId, livemode: true }, made));
    }
    await storage.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', attempts: 8, next_attempt_at: null })
      .execute();
    const at = (h: number) => clock.now - h * HOUR;
    await storage.db
      .updateTable('webhook_deliveries')
      .set({ status: 'delivered' })
      .where('created_at', '=', at(2))
      .execute();
    await storage.db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempts: 3, next_attempt_at: clock.now + HOUR })
      .where('created_at', '=', at(1))
      .execute();
    // An event over the size limit: failed when made, never attempted, and never sent.
    await storage.write((tx) =>
      recordEvents(tx, storage.engine, { workspaceId: home, livemode: true }, [
        { type: 'order.created', at: clock.now - HOUR / 2, object: { id: 'ord_big', note: 'x'.repeat(300 * 1024) } },
      ]),
    );
    clock.now += 60_000;
  });
  afterAll(async () => storage?.drop());

  const deliveries = () =>
    storage.db
      .selectFrom('webhook_deliveries')
      .select(['endpoint_id', 'status', 'attempts', 'next_attempt_at', 'claimed_until', 'created_at'])
      .orderBy('endpoint_id')
      .orderBy('created_at')
      .execute();
  const resentEntries = () =>
    storage.db.selectFrom('audit_log').selectAll().where('action', '=', 'webhook.resent').orderBy('at').execute();

  it("an endpoint's failed deliveries made at or after the instant are due now; nothing else changes", async () => {
    const before = await deliveries();
    const since = clock.now - 60_000 - 3 * HOUR;
    let woken = 0;
    const wake = () => woken++;
    outbox.on('written', wake);
    try {
      expect(await resendFailedSince(storage, clock.fn, home, mine, since, by)).toEqual({ resent: 2 });
    } finally {
      outbox.off('written', wake);
    }
    // This process's worker is told at once.
    expect(woken).toBe(1);
    const after = await deliveries();
    const changed = after.filter((d, i) => JSON.stringify(d) !== JSON.stringify(before[i]));
    // The failed ones of -3 h (exactly the instant: inclusive) and of now; not -4 h, nor the
    // delivered, pending or never-sendable ones.
    expect(changed.map((d) => [d.endpoint_id, Number(d.created_at)])).toEqual([
      [mine, since],
      [mine, since + 3 * HOUR],
    ]);
    for (const d of changed)
      expect(d).toMatchObject({ status: 'pending', attempts: 8, next_attempt_at: clock.now, claimed_until: null });

    const entries = await resentEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ workspace_id: home, target: mine, actor: 'ops person', source: 'cli' });
    expect(JSON.parse(entries[0]!.detail)).toEqual({ since: new Date(since).toISOString(), resent: 2 });
  });

  it('another workspace cannot name the endpoint; none resent is still one entry and wakes nothing', async () => {
    const before = await deliveries();
    const entries = (await resentEntries()).length;
    await expect(resendFailedSince(storage, clock.fn, other, mine, 0, by)).rejects.toThrow(/No webhook endpoint/);
    await expect(resendFailedSince(storage, clock.fn, home, elsewhere, 0, by)).rejects.toThrow(/No webhook endpoint/);
    expect(await deliveries()).toEqual(before);
    expect(await resentEntries()).toHaveLength(entries);

    let woken = 0;
    const wake = () => woken++;
    outbox.on('written', wake);
    try {
      expect(await resendFailedSince(storage, clock.fn, home, sibling, clock.now, by)).toEqual({ resent: 0 });
    } finally {
      outbox.off('written', wake);
    }
    expect(woken).toBe(0);
    expect(await deliveries()).toEqual(before);
    const last = (await resentEntries()).at(-1)!;
    expect(last).toMatchObject({ target: sibling });
    expect(JSON.parse(last.detail)).toEqual({ since: new Date(clock.now).toISOString(), resent: 0 });
  });
});
