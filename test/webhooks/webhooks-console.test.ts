import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookWorker } from '../../src/jobs/webhook-worker.ts';
import { recordEvents } from '../../src/resources/webhook-events/event.repo.ts';
import { addStaff } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { ConsoleClient, textOf } from '../console/client.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const workerFor = (t: TestApp) =>
  new WebhookWorker({
    store: t.storage,
    engine: t.storage.engine,
    clock: t.clock.fn,
    mail: { smtpUrl: null, mailFrom: 'x@example.com' },
    allowPrivate: true,
    retrySchedule: [5],
  });

/** The console's Webhooks pages, through the forms as a browser posts them. */
describe.each(ENGINES)('console webhooks on %s', (engine) => {
  let t: TestApp;
  let receiver: Receiver;
  let manager: ConsoleClient;
  let staff: ConsoleClient;

  beforeAll(async () => {
    t = await makeTestApp(engine, { env: { WEBHOOK_ALLOW_HTTP: 'on', WEBHOOK_ALLOW_PRIVATE: 'on' } });
    receiver = await startReceiver();
    for (const [email, role] of [
      ['km@example.com', 'key_manager'],
      ['staff@example.com', 'staff'],
    ] as const) {
      await addStaff(t.storage, t.clock.fn, {
        workspaceId: t.workspaceId,
        email,
        name: role,
        role,
        password: 'pw-123456',
      });
    }
    manager = new ConsoleClient(t.app);
    await manager.signIn('km@example.com', 'pw-123456');
    staff = new ConsoleClient(t.app, '203.0.113.8');
    await staff.signIn('staff@example.com', 'pw-123456');
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  it('a key manager creates an endpoint, sees the secret once, sends a test event and sees its delivery', async () => {
    const list = await manager.get('/console/webhooks');
    expect(list.statusCode).toBe(200);
    expect(textOf(list.body)).toContain('no webhook endpoints yet');
    const made = await manager.post('/console/webhooks', { url: receiver.url(), mode: 'test', events: '*' });
    expect(made.statusCode, made.body).toBe(303);
    const location = made.headers.location as string;
    expect(location).toMatch(/^\/console\/webhooks\/wh_\w{22}$/);
    const shown = await manager.get(location);
    const secret = /id="secret" readonly value="([^"]+)"/.exec(shown.body)?.[1];
    expect(secret).toMatch(/^whsec_/);
    receiver.secret = secret!;
    expect((await manager.get(location)).body).not.toContain(secret!);

    const sent = await manager.post(`${location}/test`, {});
    expect(sent.statusCode).toBe(303);
    const worker = workerFor(t);
    await worker.drain();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.verified).toBe(true);
    const page = textOf((await manager.get(location)).body);
    expect(page).toContain('webhook.test');
    expect(page).toContain('delivered');
    expect(page).toContain('204');

    const eventId = receiver.received[0]!.id;
    expect((await manager.post(`${location}/deliveries/${eventId}/resend`, {})).statusCode).toBe(303);
    await worker.drain();
    expect(receiver.received.map((r) => r.id)).toEqual([eventId, eventId]);

    expect((await manager.post(`${location}/disable`, {})).statusCode).toBe(303);
    expect(textOf((await manager.get(location)).body)).toContain('Disabled');
    expect((await manager.post(`${location}/enable`, {})).statusCode).toBe(303);
    expect((await manager.post(`${location}/rotate`, {})).statusCode).toBe(303);
    const rotated = /id="secret" readonly value="([^"]+)"/.exec((await manager.get(location)).body)?.[1];
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect((await manager.get(`${location}/delete`)).statusCode).toBe(200);
    expect((await manager.post(`${location}/delete`, {})).statusCode).toBe(303);
    expect(textOf((await manager.get('/console/webhooks')).body)).toContain('no webhook endpoints yet');
  });

  it('deleting an endpoint is confirmed on a page that says what goes with it; only its form deletes', async () => {
    await manager.get('/console/webhooks');
    const made = await manager.post('/console/webhooks', { url: receiver.url('/gone'), mode: 'live', events: '*' });
    const location = made.headers.location as string;
    const id = location.split('/').pop()!;
    receiver.secret = /id="secret" readonly value="([^"]+)"/.exec((await manager.get(location)).body)![1]!;
    // One delivery delivered, one still waiting when the endpoint goes.
    await manager.post(`${location}/test`, {});
    await workerFor(t).drain();
    await manager.get(location);
    await manager.post(`${location}/test`, {});

    const endpointPage = (await manager.get(location)).body;
    // The endpoint's page only links to the confirmation: a GET form, no token, nothing deleted by it.
    expect(endpointPage).toContain(`<form method="get" action="/console/webhooks/${id}/delete">`);
    const confirm = await manager.get(`${location}/delete`);
    expect(confirm.statusCode).toBe(200);
    const text = textOf(confirm.body);
    expect(text).toContain(`Delete the webhook endpoint ${receiver.url('/gone')}?`);
    expect(text).toContain('2 deliveries recorded, 1 of them waiting to be sent');
    expect(text).toContain('The 1 delivery still waiting will never be sent.');
    expect(confirm.body).toContain(`<form method="post" action="/console/webhooks/${id}/delete">`);
    expect(confirm.body).toMatch(/name="_csrf" value="[^"]+"/);
    expect(await t.storage.db.selectFrom('webhook_endpoints').select('id').where('id', '=', id).execute()).toHaveLength(
      1,
    );

    // Staff who do not manage keys see no confirmation; a post without the page's token deletes nothing.
    expect((await staff.get(`${location}/delete`)).statusCode).toBe(403);
    expect((await manager.post(`${location}/delete`, {}, null)).statusCode).toBe(403);
    expect((await manager.get('/console/webhooks/wh_0000000000000000000000/delete')).statusCode).toBe(404);
    expect(await t.storage.db.selectFrom('webhook_endpoints').select('id').where('id', '=', id).execute()).toHaveLength(
      1,
    );

    await manager.get(`${location}/delete`);
    const deleted = await manager.post(`${location}/delete`, {});
    expect(deleted.statusCode).toBe(303);
    expect(deleted.headers.location).toBe('/console/webhooks?done=deleted');
    const list = textOf((await manager.get(deleted.headers.location as string)).body);
    expect(list).toContain('The endpoint was deleted');
    expect(list).not.toContain(receiver.url('/gone'));
    expect(await t.storage.db.selectFrom('webhook_endpoints').select('id').where('id', '=', id).execute()).toEqual([]);
    expect(
      await t.storage.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id).execute(),
    ).toEqual([]);
    const audit = await t.storage.db
      .selectFrom('audit_log')
      .select(['action'])
      .where('target', '=', id)
      .where('action', '=', 'webhook.deleted')
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('a refused URL is shown on the form, and nothing is made', async () => {
    await manager.get('/console/webhooks');
    const res = await manager.post('/console/webhooks', { url: 'ftp://example.com/', mode: 'live', events: '*' });
    expect(res.statusCode).toBe(400);
    expect(textOf(res.body)).toContain('https only');
  });

  it("a URL over 2,048 characters is refused with the CLI's message, never cut and saved", async () => {
    await manager.get('/console/webhooks');
    const url = receiver.url(`/${'a'.repeat(2100)}`);
    const res = await manager.post('/console/webhooks', { url, mode: 'test', events: '*' });
    expect(res.statusCode).toBe(400);
    expect(textOf(res.body)).toContain('url: at most 2048 characters');
    const rows = await t.storage.db.selectFrom('webhook_endpoints').select('url').execute();
    expect(rows.filter((r) => r.url.includes('aaaa'))).toEqual([]);
  });

  it('staff get 403, and a form without its CSRF token is refused', async () => {
    expect((await staff.get('/console/webhooks')).statusCode).toBe(403);
    expect((await staff.post('/console/webhooks', { url: receiver.url(), mode: 'test' })).statusCode).toBe(403);
    await manager.get('/console/webhooks');
    const forged = await manager.post('/console/webhooks', { url: receiver.url(), mode: 'test' }, null);
    expect(forged.statusCode).toBe(403);
    const rows = await t.storage.db.selectFrom('webhook_endpoints').select('id').execute();
    expect(rows).toEqual([]);
  });

  it('"Resend failed deliveries since" resends the failed ones since the instant and says how many; the pages show failing and disabled', async () => {
    await manager.get('/console/webhooks');
    const made = await manager.post('/console/webhooks', { url: receiver.url('/late'), mode: 'live', events: '*' });
    const location = made.headers.location as string;
    const id = location.split('/').pop()!;
    const HOUR = 3_600_000;
    const now = t.clock.now;
    const events = [3, 2, 1].map((h) => ({ type: 'customer.created', at: now - h * HOUR, object: { id: `cus_${h}` } }));
    await t.storage.write((tx) =>
      recordEvents(tx, t.storage.engine, { workspaceId: t.workspaceId, livemode: true }, events),
    );
    await t.storage.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', attempts: 8, next_attempt_at: null })
      .where('endpoint_id', '=', id)
      .execute();
    const failingSince = now - 30 * HOUR;
    await t.storage.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: failingSince, failing_warned_at: now - 6 * HOUR })
      .where('id', '=', id)
      .execute();
    const statuses = async () =>
      (
        await t.storage.db
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('endpoint_id', '=', id)
          .orderBy('created_at')
          .execute()
      ).map((d) => d.status);
    const entries = () =>
      t.storage.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'webhook.resent')
        .where('target', '=', id)
        .execute();

    const utc = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
    const failing = `failing since ${utc(failingSince)} — warned`;
    expect(textOf((await manager.get('/console/webhooks')).body)).toContain(`Enabled, ${failing}`);
    const page = await manager.get(location);
    expect(textOf(page.body)).toContain(`Enabled, ${failing}`);
    // The form starts from when the failures began, in UTC as it says.
    expect(page.body).toContain(
      `name="since" step="1" required value="${new Date(failingSince).toISOString().slice(0, 16)}"`,
    );
    expect(textOf(page.body)).toContain('Resend failed deliveries since (UTC)');

    // An instant that is not one, a post without the page's token, and staff: refused, nothing resent.
    for (const since of ['', 'yesterday', '2026-02-30T10:00', '2026-10-08T10:00Z']) {
      const bad = await manager.post(`${location}/resend-failed`, { since });
      expect(bad.statusCode, since).toBe(400);
      expect(textOf(bad.body)).toContain(
        'Give a date and time (UTC), for example 2027-01-31T09:00; nothing was resent.',
      );
      expect(bad.body).toContain('aria-invalid="true"');
    }
    const since = new Date(now - 2 * HOUR).toISOString().slice(0, 16);
    expect((await manager.post(`${location}/resend-failed`, { since }, null)).statusCode).toBe(403);
    await staff.get('/console/password');
    const notAllowed = await staff.post(`${location}/resend-failed`, { since });
    expect(notAllowed.statusCode).toBe(403);
    expect(textOf(notAllowed.body)).toContain('Only owners and key managers');
    expect(await statuses()).toEqual(['failed', 'failed', 'failed']);
    expect(await entries()).toEqual([]);

    await manager.get(location);
    const resent = await manager.post(`${location}/resend-failed`, { since });
    expect(resent.statusCode).toBe(303);
    expect(resent.headers.location).toBe(`${location}?done=resent&count=2`);
    expect(textOf((await manager.get(resent.headers.location as string)).body)).toContain(
      '2 failed deliveries will be attempted again.',
    );
    expect(await statuses()).toEqual(['failed', 'pending', 'pending']);
    const [entry] = await entries();
    expect(entry).toMatchObject({ actor: 'km@example.com', source: 'console' });
    // The form's minute, in UTC.
    expect(JSON.parse(entry!.detail)).toEqual({ since: `${since}:00.000Z`, resent: 2 });

    // A disabled endpoint shows why, in the list and on its page.
    await t.storage.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_reason: 'every delivery failed for 3 days' })
      .where('id', '=', id)
      .execute();
    expect(textOf((await manager.get('/console/webhooks')).body)).toContain(
      'Disabled: every delivery failed for 3 days',
    );
    expect(textOf((await manager.get(location)).body)).toContain('Disabled: every delivery failed for 3 days');

    await manager.get(`${location}/delete`);
    expect((await manager.post(`${location}/delete`, {})).statusCode).toBe(303);
  });
});
