import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActivityCheck } from '../../src/jobs/activity-check.ts';
import { HOUR_MS, hourStart } from '../../src/jobs/activity.repo.ts';
import { DAY_MS } from '../../src/lib/time.ts';
import { keyUsage, USAGE_HOURS } from '../../src/resources/keys/key-usage.service.ts';
import { getWorkspaceKey } from '../../src/resources/keys/key.service.ts';
import { addStaff, createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { addCustomers, seedHours } from '../jobs/activity-fixtures.ts';
import { ConsoleClient, textOf } from './client.ts';

/** 10:30 UTC: a check run now judges 09:00–10:00. */
const T0 = Date.UTC(2026, 9, 1, 10, 30);

/** A key's usage on its page (docs/console.md "A key's usage"): what the hourly check saw, drawn and tabled. */
describe.each(ENGINES)('a key page’s usage on %s', (engine) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await makeTestApp(engine, { clock: T0 });
  });
  afterAll(async () => t?.close());

  async function workspace(customers: number) {
    const ws = await createWorkspace(t.storage, t.clock.fn, { name: 'Usage Venue' });
    const email = `owner.${ws.id.slice(-8).toLowerCase()}@venue.test`;
    await addStaff(t.storage, t.clock.fn, {
      workspaceId: ws.id,
      email,
      name: 'Owner',
      role: 'owner',
      password: 'a password',
    });
    await addCustomers(t.storage.db, ws.id, customers, t.clock.now);
    return { id: ws.id, email };
  }

  /** Signs in at the clock's time now (a session made days earlier on the test clock has ended). */
  async function ownerOf(ws: { email: string }) {
    const owner = new ConsoleClient(t.app);
    expect((await owner.signIn(ws.email, 'a password')).statusCode).toBe(303);
    return owner;
  }

  const check = () =>
    runActivityCheck({
      store: t.storage,
      engine: t.storage.engine,
      clock: t.clock.fn,
      mail: { smtpUrl: null, mailFrom: 'venue-api <alerts@venue.test>' },
    });

  it('draws requests an hour with the threshold the check applied, and names the figure that paused the key', async () => {
    t.clock.now = T0 - 8 * DAY_MS;
    const ws = await workspace(5);
    const key = await t.makeKey({ workspaceId: ws.id, name: 'burst', mode: 'live', access: 'read' });
    const judged = hourStart(T0) - HOUR_MS;
    await seedHours(t.storage.db, { id: key.id, workspaceId: ws.id }, judged - 7 * DAY_MS, judged, 100);
    await seedHours(t.storage.db, { id: key.id, workspaceId: ws.id }, judged, judged + HOUR_MS, 1_234);
    t.clock.now = T0;
    expect((await check()).paused.map((p) => p.key)).toEqual([key.id]);

    const usage = await keyUsage(t.storage.db, await getWorkspaceKey(t.storage.db, ws.id, key.id), T0);
    expect(usage.watched).toBe(true);
    expect(usage.hours).toHaveLength(USAGE_HOURS);
    expect(usage.hours.at(-1)!.hourStart).toBe(hourStart(T0));
    const hour = usage.hours.find((h) => h.hourStart === judged)!;
    // 5 x an average of 100 is 500: the floor of 1,000 is the threshold.
    expect(hour).toMatchObject({ requests: 1_234, check: { requestThreshold: 1_000, verdict: 'requests' } });
    expect(usage.pausedBy).toMatchObject({ hourStart: judged, requests: 1_234 });

    const page = await (await ownerOf(ws)).get(`/console/keys/${key.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(
      /<svg class="chart"[^>]*role="img"[^>]*aria-labelledby="usage-requests-title usage-requests-desc"/,
    );
    expect(page.body).toContain('class="chart-threshold"');
    expect(page.body).toContain('chart-bar chart-flagged');
    const text = textOf(page.body);
    expect(text).toContain(
      'Paused by the unusual-activity check: 1,234 requests from 2026-10-01 09:00 UTC to 2026-10-01 10:00 UTC, above the hour’s threshold of 1,000.',
    );
    expect(text).toContain('2026-10-01 09:00 UTC 1,234 1,000 paused (requests)');
    expect(text).toContain('2026-09-30 09:00 UTC 100 — not judged');
  });

  it('draws distinct customers a day against half the workspace, and a first sync as exempt', async () => {
    t.clock.now = T0;
    const ws = await workspace(120);
    const key = await t.makeKey({ workspaceId: ws.id, name: 'sync', mode: 'live', access: 'read' });
    t.clock.now = T0 + 2 * HOUR_MS;
    expect((await t.call(key, { method: 'GET', url: '/customers?limit=100' })).statusCode).toBe(200);
    await t.app.activity.flush();
    t.clock.now = T0 + 2 * HOUR_MS + 60_000;
    await check(); // within the first 24 hours: judged, exempt
    t.clock.now = T0 + 26 * HOUR_MS;
    expect((await t.call(key, { method: 'GET', url: '/customers?limit=100' })).statusCode).toBe(200);
    await t.app.activity.flush();
    expect((await check()).paused.map((p) => p.key)).toEqual([key.id]);

    const page = await (await ownerOf(ws)).get(`/console/keys/${key.id}`);
    const text = textOf(page.body);
    expect(text).toContain(
      'Paused by the unusual-activity check: 100 distinct customers in the 24 hours before 2026-10-02 12:00 UTC, above the threshold of 60',
    );
    expect(text).toContain('2026-10-01 11:00 UTC 0 exempt usual'); // the reads at 12:30 fall in the next hour
    expect(text).toContain('2026-10-01 0 60'); // the first sync's reads are not counted
    expect(text).toContain('2026-10-02 100 60');
    expect(page.body).toMatch(/aria-labelledby="usage-customers-title usage-customers-desc"/);
    const usage = await keyUsage(t.storage.db, await getWorkspaceKey(t.storage.db, ws.id, key.id), t.clock.now);
    expect(usage.days.map((d) => new Date(d.dayStart).toISOString().slice(0, 10))).toEqual([
      '2026-09-26',
      '2026-09-27',
      '2026-09-28',
      '2026-09-29',
      '2026-09-30',
      '2026-10-01',
      '2026-10-02',
    ]);
  });

  it('says a test key is not watched, and a key nobody used draws empty charts', async () => {
    t.clock.now = T0;
    const ws = await workspace(0);
    const testKey = await t.makeKey({ workspaceId: ws.id, name: 'test', mode: 'test', access: 'read' });
    expect(textOf((await (await ownerOf(ws)).get(`/console/keys/${testKey.id}`)).body)).toContain(
      'Test keys are not counted hour by hour',
    );
    const idle = await t.makeKey({ workspaceId: ws.id, name: 'idle', mode: 'live', access: 'read' });
    const page = await (await ownerOf(ws)).get(`/console/keys/${idle.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('class="chart-bar');
    expect(page.body).not.toContain('id="paused-figure"');
  });
});
