import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords } from '../../src/import/import.service.ts';
import { memorySource } from '../../src/import/reader.ts';
import { WebhookWorker } from '../../src/jobs/webhook-worker.ts';
import { recordEvents } from '../../src/resources/webhook-events/event.repo.ts';
import { createEndpoint, deleteEndpoint } from '../../src/resources/webhooks/webhook.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { get } from '../helpers/writes.ts';
import * as r from '../import/records.ts';
import { payloadChecker } from './payload-schemas.ts';
import { startReceiver, type Receiver } from './receiver.ts';

describe.each(ENGINES)('webhook events of an import on %s', (engine) => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await makeTestApp(engine);
    receiver = await startReceiver();
    const made = await createEndpoint(
      t.storage,
      t.clock.fn,
      { allowHttp: true, allowPrivate: true },
      { workspaceId: t.workspaceId, url: receiver.url(), mode: 'live', contactsMasked: false, createdBy: 'test' },
    );
    receiver.secret = made.secret;
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  const run = (lines: Record<string, unknown>[]) =>
    importRecords(t.storage, { workspaceId: t.workspaceId, source: memorySource(r.ndjson(lines)), clock: t.clock.fn });
  const drain = () =>
    new WebhookWorker({
      store: t.storage,
      engine: t.storage.engine,
      clock: t.clock.fn,
      mail: { smtpUrl: null, mailFrom: 'x@example.com' },
      allowPrivate: true,
      retrySchedule: [5],
    }).drain();

  it('sends customer.created and customer.updated as GET shows them, and <object>.created/updated for the rest', async () => {
    const c = r.customer({ last_name: 'Imported', livemode: true });
    const v = r.venue();
    expect((await run([v, c])).bad_lines).toEqual([]);
    await drain();
    const first = receiver.received.map((x) => x.body);
    expect(first.map((b) => b.type).sort()).toEqual(['customer.created', 'venue.created']);
    const created = first.find((b) => b.type === 'customer.created');
    expect(created.data.object).toEqual((await get(t, t.keys.live, c.id as string)).json());
    expect(first.find((b) => b.type === 'venue.created').data.object.id).toBe(v.id);

    receiver.received.length = 0;
    expect(
      (
        await run([
          { ...v, name: 'Renamed' },
          { ...c, last_name: 'Again' },
        ])
      ).bad_lines,
    ).toEqual([]);
    await drain();
    const second = receiver.received.map((x) => x.body);
    expect(second.map((b) => b.type).sort()).toEqual(['customer.updated', 'venue.updated']);
    const updated = second.find((b) => b.type === 'customer.updated');
    expect(updated.data.previous_attributes).toEqual({ last_name: 'Imported' });
    expect(updated.data.object).toEqual((await get(t, t.keys.live, c.id as string)).json());
    expect(receiver.received.every((x) => x.verified)).toBe(true);
    // As the OpenAPI document (and so the client's generated types) describes them.
    expect((await payloadChecker(t))([...first, ...second])).toEqual([]);
  });

  it("a contacts-masked endpoint never sees an order's billing email or phone, in data.object nor in previous_attributes", async () => {
    const masked = await createEndpoint(
      t.storage,
      t.clock.fn,
      { allowHttp: true, allowPrivate: true },
      {
        workspaceId: t.workspaceId,
        url: receiver.url('/masked'),
        mode: 'live',
        contactsMasked: true,
        createdBy: 'test',
      },
    );
    const first = receiver.secret;
    receiver.secret = masked.secret;
    receiver.received.length = 0;
    const billing = { name: 'Ada Lovelace', email: 'ada.lovelace@example.com', phone: '+61412345678' };
    const o = r.order({ billing_details: billing });
    expect((await run([o])).bad_lines).toEqual([]);
    expect((await run([{ ...o, billing_details: { ...billing, name: 'Ada King' } }])).bad_lines).toEqual([]);
    // An order update that says what its billing details were (the feed's previous_attributes).
    await t.storage.write((tx) =>
      recordEvents(tx, t.storage.engine, { workspaceId: t.workspaceId, livemode: true }, [
        {
          type: 'order.updated',
          at: t.clock.now,
          object: o,
          previous: JSON.stringify({ billing_details: billing, total: 4000 }),
        },
      ]),
    );
    await drain();
    const sent = receiver.received.filter((x) => x.path === '/masked').map((x) => x.body);
    expect(sent.map((b) => b.type).sort()).toEqual(['order.created', 'order.updated', 'order.updated']);
    const text = JSON.stringify(sent);
    expect(text).not.toContain('lovelace@');
    expect(text).not.toContain('412345678');
    const shown = { name: 'Ada Lovelace', email: 'a***@example.com', phone: '+*********78' };
    const objects = sent.map((b) => b.data.object.billing_details);
    expect(objects).toContainEqual(shown);
    expect(objects).toContainEqual({ ...shown, name: 'Ada King' });
    const told = sent.find((b) => b.data.previous_attributes !== undefined);
    expect(told.data.previous_attributes).toEqual({ billing_details: shown, total: 4000 });
    // The unmasked endpoint of the same scope gets them whole.
    const whole = receiver.received.filter((x) => x.path !== '/masked').map((x) => x.body);
    expect(whole.map((b) => b.data.object.billing_details)).toContainEqual(billing);
    expect(receiver.received.filter((x) => x.path === '/masked').every((x) => x.verified)).toBe(true);
    await deleteEndpoint(t.storage, t.workspaceId, masked.endpoint.id);
    receiver.secret = first;
  });

  it('a test-mode customer of an import reaches no live endpoint', async () => {
    receiver.received.length = 0;
    expect((await run([r.customer({ livemode: false })])).bad_lines).toEqual([]);
    await drain();
    expect(receiver.received).toEqual([]);
  });
});
