import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, signIn } from '../helpers/browser.ts';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { addStaffWithHash, cheapPasswordHash } from '../helpers/staff.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The console in a browser: Debian's Chromium, driven through the labels a person reads,
 * against `npm start`'s bundle on SQLite. axe-core checks every page; each step leaves a
 * screenshot in test/e2e/screenshots/ (ignored by git).
 */
const VERSION = { 'Service-Version': '2026-10-08' };

describe('the console in Chromium', { timeout: 90_000 }, () => {
  let storage: TestStorage;
  let server: ServerProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let helperSecret: string;
  let customerId: string;
  const cspErrors: string[] = [];
  const state = { keyId: '', secret: '' };

  const api = (secret: string, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${secret}`, ...VERSION, ...(init.headers ?? {}) },
    });

  /** Polls the API until it answers `status` (the key cache refreshes every KEY_REFRESH_MS, 2 s). */
  const apiAnswers = async (secret: string, status: number, code?: string) => {
    const deadline = Date.now() + 15_000;
    let last = { status: 0, code: undefined as string | undefined };
    while (Date.now() < deadline) {
      const res = await api(secret, '/key');
      const body = (await res.json()) as { code?: string };
      last = { status: res.status, code: res.status >= 400 ? body.code : undefined };
      if (last.status === status && (code === undefined || last.code === code)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    return last;
  };

  const watch = (p: Page) =>
    p.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });

  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    const ws = await createWorkspace(storage, systemClock, { name: 'Browser Venues' });
    // Cheap hashes, so the lock-out's ten failures cost little; a first sign-in makes the full-cost one.
    for (const [email, role] of [
      ['owner@example.com', 'owner'],
      ['clerk@example.com', 'staff'],
      ['locked@example.com', 'owner'],
    ] as const)
      await addStaffWithHash(storage, systemClock, {
        workspaceId: ws.id,
        email,
        name: email.split('@')[0]!,
        role,
        hash: cheapPasswordHash('right password'),
      });
    // Another program's key, which owns the customer the console's key will change.
    helperSecret = (
      await createKey(storage, systemClock, {
        workspaceId: ws.id,
        name: 'Helper',
        mode: 'live',
        access: 'read_write',
      })
    ).secret;
    server = await startServer({ DATABASE_URL: storage.url, DEMO: 'off' });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    context = await browser.newContext();
    page = await context.newPage();
    // A sign-in hashes at scrypt's full cost (N=2^17): seconds on a loaded machine.
    context.setDefaultTimeout(30_000);
    watch(page);
    const created = await api(helperSecret, '/customers', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'e2e-customer' },
      body: JSON.stringify({ first_name: 'Grace', last_name: 'Hopper' }),
    });
    expect(created.status).toBe(201);
    customerId = ((await created.json()) as { id: string }).id;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await storage?.drop();
  });

  it('refuses a wrong password, then signs in', async () => {
    await signIn(page, server.url, 'owner@example.com', 'wrong password');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('The email or password is not right.');
    await checkPage(page, '01-sign-in-refused');
    await signIn(page, server.url, 'owner@example.com', 'right password');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    expect(await page.textContent('main')).toContain('1 of 25 keys in use');
    await checkPage(page, '02-keys');
  });

  it('refuses a key without the three agreements, and without a CSRF token', async () => {
    await page.getByRole('link', { name: 'Create key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('No agreements');
    await checkPage(page, '03-create-form');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Tick "I agree to the API terms" to create a key.').waitFor();
    await checkPage(page, '04-create-refused');
    for (const label of [
      'I agree to the API terms',
      'I agree to the acceptable use policy',
      'I agree to the data and privacy terms',
    ])
      await page.getByLabel(label).check();
    await page.evaluate(() => document.querySelector('main form input[name="_csrf"]')?.remove());
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { level: 1, name: 'Form expired' }).waitFor();
    await checkPage(page, '05-csrf-refused');
    await page.goto(`${server.url}/console/keys`);
    expect(await page.textContent('main')).toContain('1 of 25 keys in use');
  });

  it('creates a live read-write key, shows its secret once, and the API answers it with 200', async () => {
    await page.getByRole('link', { name: 'Create key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Browser key');
    await page.getByLabel('Live', { exact: true }).check();
    await page.getByLabel('Read and write', { exact: true }).check();
    for (const label of [
      'I agree to the API terms',
      'I agree to the acceptable use policy',
      'I agree to the data and privacy terms',
    ])
      await page.getByLabel(label).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secretField = page.getByLabel('Secret');
    state.secret = await secretField.inputValue();
    expect(state.secret).toMatch(/^vw_live_/);
    expect(await secretField.getAttribute('readonly')).not.toBeNull();
    await page.getByRole('button', { name: 'Copy' }).click();
    await checkPage(page, '06-secret-once');
    state.keyId = /keys\/(key_\w+)\/created/.exec(page.url())![1]!;
    await page.reload();
    expect(await page.content()).not.toContain(state.secret);
    expect(await page.getByLabel('Secret').count()).toBe(0);
    expect((await api(state.secret, '/key')).status).toBe(200);
  });

  it('pauses the key on its page (403 key_paused within 5 s), then resumes it', async () => {
    await page.goto(`${server.url}/console/keys/${state.keyId}`);
    await checkPage(page, '07-key-page');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByLabel('Reason (optional)').fill('Checking the sync');
    await checkPage(page, '08-confirm-pause');
    await page.getByRole('button', { name: 'Confirm' }).click();
    expect(await apiAnswers(state.secret, 403, 'key_paused')).toEqual({ status: 403, code: 'key_paused' });
    expect(await page.textContent('main')).toContain('Checking the sync');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    expect(await apiAnswers(state.secret, 200)).toEqual({ status: 200, code: undefined });
  });

  it("undoes the key's change to a customer after the preview; the API shows the customer restored", async () => {
    const changed = await api(state.secret, `/customers/${customerId}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', 'If-Match': '*' },
      body: JSON.stringify({ last_name: 'Changed by the key' }),
    });
    expect(changed.status).toBe(200);
    await page.goto(`${server.url}/console/keys/${state.keyId}`);
    expect(await page.textContent('main')).toContain(customerId);
    await page.getByRole('link', { name: "Undo this key's changes" }).click();
    expect(await page.textContent('main')).toContain(customerId);
    expect(await page.textContent('main')).toContain('Would revert (1)');
    await checkPage(page, '09-undo-preview');
    await page.getByRole('button', { name: 'Confirm undo' }).click();
    // The undo runs as a job in the server; the key's page shows how far it got until it ends.
    const status = page.getByRole('status').filter({ hasText: /Undo (queued|running|finished)/ });
    await status.waitFor();
    for (let i = 0; i < 40 && !/Undo finished/.test(await status.innerText()); i++) {
      await page.waitForTimeout(250);
      await page.getByRole('link', { name: 'Refresh progress' }).click();
      await page.waitForLoadState();
    }
    expect(await status.innerText()).toMatch(/1 of 1 change\(s\) looked at: 1 reverted, 0 left as they were/);
    await checkPage(page, '10-undo-result');
    const customer = (await (await api(helperSecret, `/customers/${customerId}`)).json()) as { last_name: string };
    expect(customer.last_name).toBe('Hopper');
    await page.goto(`${server.url}/console/keys/${state.keyId}`);
    expect(await page.textContent('main')).toContain('(undo)');
  });

  it('revokes the key: the API answers 401', async () => {
    await page.getByRole('button', { name: 'Revoke' }).click();
    await checkPage(page, '11-confirm-revoke');
    await page.getByRole('button', { name: 'Confirm' }).click();
    expect((await apiAnswers(state.secret, 401)).status).toBe(401);
    await page.goto(`${server.url}/console/notifications`);
    await checkPage(page, '12-notifications');
    await page.goto(`${server.url}/console/password`);
    await checkPage(page, '13-password');
  });

  it('a staff member signs in but cannot reach the key pages', async () => {
    const staff = await browser.newContext();
    const p = await staff.newPage();
    watch(p);
    await signIn(p, server.url, 'clerk@example.com', 'right password');
    await p.getByRole('heading', { level: 1, name: 'Developer settings' }).waitFor();
    await checkPage(p, '14-staff-home');
    const res = await p.goto(`${server.url}/console/keys`);
    expect(res?.status()).toBe(403);
    await checkPage(p, '15-staff-refused');
    expect((await p.goto(`${server.url}/console/keys/${state.keyId}`))?.status()).toBe(403);
    await staff.close();
  });

  it('locks an email out after 10 failed sign-ins, even with the right password', async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    for (let i = 0; i < 10; i++) await signIn(p, server.url, 'locked@example.com', `wrong ${i}`);
    await signIn(p, server.url, 'locked@example.com', 'right password');
    await expect.poll(() => p.getByRole('alert').textContent()).toMatch(/Too many failed sign-ins/);
    await checkPage(p, '16-locked-out');
    expect(p.url()).toContain('/console/sign-in');
    await other.close();
  });

  it('no page broke the Content-Security-Policy', () => {
    expect(cspErrors).toEqual([]);
  });
});
