import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, signedInPage } from '../helpers/browser.ts';
import { runActivityCheck } from '../../src/jobs/activity-check.ts';
import { HOUR_MS, hourStart } from '../../src/jobs/activity.repo.ts';
import { newId } from '../../src/lib/ids.ts';
import { DAY_MS, systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { seedHours } from '../jobs/activity-fixtures.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { addOwner, OWNER_EMAIL, OWNER_PASSWORD } from '../helpers/staff.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * A key's page and its undo in Chromium (docs/console.md): the usage charts with their
 * tables, the figure that paused a key, and the undo preview's three values per field,
 * reached by keyboard, with axe-core finding nothing serious. Screenshots go to
 * test/e2e/screenshots/ (ignored by git).
 */
const VERSION = { 'Service-Version': '2026-10-08' };

describe('a key’s page in Chromium', { timeout: 90_000 }, () => {
  let storage: TestStorage;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let burstKey: string;
  let writerKey: string;
  let writerSecret: string;
  let customerId: string;
  let workspaceId: string;
  const cspErrors: string[] = [];

  const api = (secret: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${secret}`,
        'Content-Type': 'application/json',
        ...VERSION,
        ...(init.headers ?? {}),
      },
    });

  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    const now = Date.now();
    const eightDaysAgo = () => now - 8 * DAY_MS;
    const ws = await createWorkspace(storage, systemClock, { name: 'Chart Venues' });
    workspaceId = ws.id;
    await addOwner(storage, systemClock, ws.id);
    // A live key a week old with a steady 100 requests an hour, then 1,500 in the last hour.
    const burst = await createKey(storage, eightDaysAgo, {
      workspaceId: ws.id,
      name: 'Burst',
      mode: 'live',
      access: 'read',
    });
    burstKey = burst.key.id;
    const judged = hourStart(now) - HOUR_MS;
    await seedHours(storage.db, { id: burstKey, workspaceId: ws.id }, judged - 7 * DAY_MS, judged, 100);
    await seedHours(storage.db, { id: burstKey, workspaceId: ws.id }, judged, judged + HOUR_MS, 1_500);
    const checked = await runActivityCheck({
      store: storage,
      engine: storage.engine,
      clock: systemClock,
      mail: { smtpUrl: null, mailFrom: 'venue-api <alerts@venue.test>' },
    });
    expect(checked.paused.map((p) => p.key)).toEqual([burstKey]);

    const writer = await createKey(storage, systemClock, {
      workspaceId: ws.id,
      name: 'Writer',
      mode: 'live',
      access: 'read_write',
    });
    writerKey = writer.key.id;
    writerSecret = writer.secret;

    server = await startServer({ DATABASE_URL: storage.url, DEMO: 'off' });
    const created = await api(writerSecret, '/customers', {
      method: 'POST',
      headers: { 'Idempotency-Key': 'e2e-usage-customer' },
      body: JSON.stringify({ first_name: 'Katherine', last_name: 'Johnson' }),
    });
    expect(created.status).toBe(201);
    customerId = ((await created.json()) as { id: string }).id;
    const changed = await api(writerSecret, `/customers/${customerId}`, {
      method: 'PATCH',
      headers: { 'If-Match': '*' },
      body: JSON.stringify({ company: 'NASA' }),
    });
    expect(changed.status).toBe(200);

    ({ browser, page } = await signedInPage(server.url, OWNER_EMAIL, OWNER_PASSWORD, cspErrors));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await storage?.drop();
  });

  it('draws a paused key’s requests an hour with the threshold, names the figure, and tables the figures', async () => {
    await page.goto(`${server.url}/console/keys/${burstKey}`);
    const chart = page.getByRole('img', { name: 'Requests an hour, last 7 days' });
    await chart.waitFor();
    expect((await chart.boundingBox())!.height).toBeGreaterThan(50);
    await page.getByRole('img', { name: 'Distinct customers sent a day, last 7 days' }).waitFor();
    expect(await page.locator('#paused-figure').textContent()).toMatch(
      /Paused by the unusual-activity check: 1,500 requests from .* above the hour’s threshold of 1,000\./,
    );
    // The table behind the chart opens from the keyboard.
    const summary = page.getByText('Requests an hour as a table');
    await summary.focus();
    await page.keyboard.press('Enter');
    const row = page.getByRole('row').filter({ hasText: 'paused (requests)' });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/1,500\s+1,000\s+paused \(requests\)/);
    await checkPage(page, 'usage-01-paused-key');
    expect(cspErrors).toEqual([]);
  });

  it('the undo preview shows what the key wrote, what is there now, and what would come back', async () => {
    await page.goto(`${server.url}/console/keys/${writerKey}`);
    await page
      .getByRole('link', { name: 'Undo this key’s changes' })
      .or(page.getByRole('link', { name: "Undo this key's changes" }))
      .focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Confirm undo' }).waitFor();
    const company = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'company' }) });
    expect((await company.innerText()).replace(/\s+/g, ' ')).toContain('company "NASA" "NASA" null');
    await checkPage(page, 'usage-02-undo-preview');
    await page.getByRole('link', { name: customerId }).first().click();
    await page.getByRole('heading', { level: 1, name: `Customer ${customerId}` }).waitFor();
    expect(await page.textContent('main')).toContain('"NASA"');
    await checkPage(page, 'usage-03-customer-now');
    expect(cspErrors).toEqual([]);
  });

  /** Tabs through the page until `name` has the focus, as a keyboard user would reach it. */
  async function tabTo(name: string): Promise<void> {
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
      if (focused === name) return;
    }
    throw new Error(`the keyboard never reached “${name}”`);
  }

  it('confirming the undo answers at once; the key’s page shows the job’s progress, then what it did', async () => {
    await page.goto(`${server.url}/console/keys/${writerKey}/undo`);
    await tabTo('Confirm undo');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.url}/console/keys/${writerKey}#undo`);
    const section = page.locator('main');
    const status = page.getByRole('status').filter({ hasText: /Undo (queued|running|finished)/ });
    await status.waitFor();
    if (/Undo (queued|running)/.test(await status.innerText())) {
      await page.getByRole('progressbar', { name: 'Undo progress' }).waitFor();
      await checkPage(page, 'usage-04-undo-in-progress');
    }
    // The worker in the server process runs it; "Refresh progress" is how the page is looked at again.
    for (let i = 0; i < 40 && !/Undo finished/.test(await status.innerText()); i++) {
      await page.waitForTimeout(250);
      await tabTo('Refresh progress');
      await page.keyboard.press('Enter');
      await page.waitForLoadState();
    }
    expect(await status.innerText(), server.output().slice(-3000)).toMatch(
      /Undo finished at .*: 2 of 2 change\(s\) looked at: 2 reverted, 0 left as they were\..*Asked for by owner@example\.com/s,
    );
    expect(await section.innerText()).toMatch(/Skipped \(0\)/);
    await checkPage(page, 'usage-05-undo-finished');
    // The key created the customer: undone, it is gone from the API.
    const gone = await api(writerSecret, `/customers/${customerId}`);
    expect(gone.status).toBe(404);
    // Nothing is left to undo, and the page's "Undo this key's changes" is reached by keyboard.
    await tabTo("Undo this key's changes");
    await page.keyboard.press('Enter');
    await page.getByText('This key has no changes left to undo.').waitFor();
    expect(cspErrors).toEqual([]);
  });

  it('an undo another process is running shows its progress, refuses a second undo, and one that ended lists what it skipped', async () => {
    // Jobs as a server process leaves them mid-way (its claim live) and at their end.
    const now = Date.now();
    const job = (id: string, key: string, over: Record<string, unknown>) => ({
      id,
      workspace_id: workspaceId,
      key_id: key,
      requested_by_kind: 'staff' as const,
      requested_by: 'stf_e2e',
      audit_actor: JSON.stringify({ kind: 'staff', staffId: 'stf_e2e', email: 'olive@example.com', address: null }),
      status: 'running' as const,
      total: 1_200,
      until: now,
      reverted: 450,
      skipped: 30,
      skip_rows: 0,
      error: null,
      claim: 'another-process',
      claimed_until: now + 3_600_000,
      created_at: now,
      started_at: now,
      updated_at: now,
      finished_at: null,
      ...over,
    });
    const ended = await createKey(storage, systemClock, {
      workspaceId,
      name: 'Ended',
      mode: 'live',
      access: 'read_write',
    });
    await storage.db
      .insertInto('undo_jobs')
      .values([
        job(newId('undo_job'), burstKey, {}),
        job('udj_ended0000000000000000', ended.key.id, {
          status: 'done',
          total: 3,
          reverted: 2,
          skipped: 1,
          skip_rows: 1,
          claim: null,
          claimed_until: null,
          finished_at: now,
        }),
      ])
      .execute();
    await storage.db
      .insertInto('undo_job_skips')
      .values({
        job_id: 'udj_ended0000000000000000',
        seq: 0,
        change_id: 'chg_e2e0000000000000000000',
        action: 'customer.update',
        customer_id: 'cus_e2e0000000000000000000',
        field: 'last_name',
        reason: 'changed_since',
        by: 'stf_someone',
      })
      .execute();

    await page.goto(`${server.url}/console/keys/${burstKey}`);
    const running = page.getByRole('status').filter({ hasText: 'Undo running' });
    expect(await running.innerText()).toContain(
      '480 of 1,200 change(s) looked at: 450 reverted, 30 left as they were.',
    );
    await page.getByRole('progressbar', { name: 'Undo progress' }).waitFor();
    await checkPage(page, 'usage-06-undo-running');
    // A second undo of the key while it runs: the preview offers none, and a confirm sent anyway is refused.
    await page.goto(`${server.url}/console/keys/${burstKey}/undo`);
    await page.getByText("An undo of this key's changes is running.").waitFor();
    expect(await page.getByRole('button', { name: 'Confirm undo' }).count()).toBe(0);
    const csrf = await page.locator('input[name="_csrf"]').first().getAttribute('value');
    const refused = await page.request.post(`${server.url}/console/keys/${burstKey}/undo`, {
      form: { _csrf: csrf ?? '' },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(409);
    expect(await refused.text()).toContain('already running');

    await page.goto(`${server.url}/console/keys/${ended.key.id}`);
    expect(await page.getByRole('status').filter({ hasText: 'Undo finished' }).innerText()).toContain(
      '3 of 3 change(s) looked at: 2 reverted, 1 left as they were.',
    );
    const skipped = page.getByRole('row').filter({ hasText: 'chg_e2e0000000000000000000' });
    expect((await skipped.innerText()).replace(/\s+/g, ' ')).toContain(
      'last_name changed later by someone else (stf_someone)',
    );
    await checkPage(page, 'usage-07-undo-ended-skipped');
    expect(cspErrors).toEqual([]);
  });
});
