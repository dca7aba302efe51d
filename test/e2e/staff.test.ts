import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, signIn } from '../helpers/browser.ts';
import { systemClock } from '../../src/lib/time.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { addOwner, OWNER_EMAIL, OWNER_PASSWORD } from '../helpers/staff.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The staff and audit pages in Debian's Chromium (docs/console.md "Staff", "Audit log"):
 * an invitation accepted in a second browser, a removal that signs that browser out at its
 * next click, axe-core on every new page, and every action reached by the keyboard alone.
 * Screenshots go to test/e2e/screenshots/ (ignored by git), named staff-*.
 */

describe('staff and audit pages in Chromium', { timeout: 120_000 }, () => {
  let storage: TestStorage;
  let server: ServerProcess;
  let browser: Browser;
  let ownerContext: BrowserContext;
  let owner: Page;
  let invitePath = '';
  const cspErrors: string[] = [];

  /** Tabs through the page from its top and answers whether every control in main took the focus. */
  const keyboardReachesEverything = async (p: Page) => {
    const controls = await p.evaluate(() => {
      const all = [
        ...document.querySelectorAll('main a[href], main button, main input:not([type=hidden]), main select'),
      ];
      for (const [i, el] of all.entries()) el.setAttribute('data-kb', String(i));
      return all.length;
    });
    await p.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const reached = new Set<string>();
    for (let i = 0; i < controls + 30 && reached.size < controls; i++) {
      await p.keyboard.press('Tab');
      const kb = await p.evaluate(() => document.activeElement?.getAttribute('data-kb') ?? null);
      if (kb !== null) reached.add(kb);
    }
    return { controls, reached: reached.size };
  };

  const watch = (p: Page) =>
    p.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });

  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    const ws = await createWorkspace(storage, systemClock, { name: 'Browser Team' });
    await addOwner(storage, systemClock, ws.id);
    server = await startServer({ DATABASE_URL: storage.url, DEMO: 'off' });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
    ownerContext = await browser.newContext();
    // A sign-in or an accepted invitation hashes at scrypt's full cost: seconds on a loaded machine.
    ownerContext.setDefaultTimeout(30_000);
    owner = await ownerContext.newPage();
    watch(owner);
    await signIn(owner, server.url, OWNER_EMAIL, OWNER_PASSWORD);
    await owner.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await storage?.drop();
  });

  it('an owner invites someone with the keyboard alone; the link is shown once', async () => {
    await owner.getByRole('link', { name: 'Staff' }).click();
    await owner.getByRole('heading', { level: 1, name: 'Staff' }).waitFor();
    await checkPage(owner, 'staff-01-staff');
    const reach = await keyboardReachesEverything(owner);
    expect(reach.reached).toBe(reach.controls);

    await owner.getByLabel('Email').focus();
    await owner.keyboard.type('kim@example.com');
    await owner.keyboard.press('Tab');
    await owner.keyboard.press('Home'); // Owner, Key manager, Staff: the role select starts from its first
    await owner.keyboard.press('ArrowDown');
    expect(await owner.getByLabel('Role', { exact: true }).inputValue()).toBe('key_manager');
    await owner.keyboard.press('Tab');
    await owner.keyboard.press('Enter');
    await owner.getByRole('heading', { level: 1, name: 'Invitation sent' }).waitFor();
    await checkPage(owner, 'staff-02-invitation-sent');
    const link = await owner.getByLabel('Invitation link').inputValue();
    invitePath = new URL(link).pathname;
    expect(invitePath).toMatch(/^\/console\/invitations\/[\w-]{43}$/);
    await owner.reload();
    expect(await owner.content()).not.toContain(invitePath);
  });

  it('the invitation is accepted in a second browser; the new person signs in with the role given', async () => {
    const other = await browser.newContext();
    other.setDefaultTimeout(30_000);
    const p = await other.newPage();
    watch(p);
    await p.goto(`${server.url}${invitePath}`);
    await p.getByRole('heading', { level: 1, name: 'Join Browser Team' }).waitFor();
    expect(await p.textContent('main')).toContain('as Key manager');
    await checkPage(p, 'staff-03-accept');
    const reach = await keyboardReachesEverything(p);
    expect(reach.reached).toBe(reach.controls);
    await p.getByLabel('Your name').fill('Kim Keys');
    await p.getByLabel('Password (8 characters or more)').fill('kims own password');
    await p.getByLabel('Password again').fill('kims own password');
    await p.getByLabel('Password again').press('Enter');
    await p.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    expect(await p.textContent('header')).toContain('Kim Keys (key manager)');
    // Signed out, then in again with the password they chose: the same role.
    await p.getByRole('button', { name: 'Sign out' }).click();
    await signIn(p, server.url, 'kim@example.com', 'kims own password');
    await p.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    expect(await p.textContent('header')).toContain('Kim Keys (key manager)');
    expect((await p.goto(`${server.url}/console/staff`))?.status()).toBe(403);
    await p.goto(`${server.url}/console/keys`);
    // The link works once.
    const used = await browser.newContext();
    const q = await used.newPage();
    expect((await q.goto(`${server.url}${invitePath}`))?.status()).toBe(404);
    await used.close();

    // Removing them ends their session: their next click lands on the sign-in page.
    await owner.goto(`${server.url}/console/staff`);
    await owner.getByRole('link', { name: 'Remove Kim Keys' }).focus();
    await owner.keyboard.press('Enter');
    await owner.getByRole('heading', { level: 1, name: 'Remove Kim Keys?' }).waitFor();
    await checkPage(owner, 'staff-04-confirm-remove');
    await owner.getByRole('button', { name: 'Remove' }).focus();
    await owner.keyboard.press('Enter');
    await owner.getByText('They were removed; every session they had has ended.').waitFor();
    await p.getByRole('link', { name: 'Notifications' }).click();
    await p.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await checkPage(p, 'staff-05-removed-signed-out');
    await other.close();
  });

  it('the audit log lists what happened, filtered by action with the keyboard', async () => {
    await owner.getByRole('link', { name: 'Audit log' }).click();
    await owner.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const main = (await owner.textContent('main')) ?? '';
    for (const action of ['staff.removed', 'staff.joined', 'staff.invited', 'sign_in.succeeded'])
      expect(main).toContain(action);
    await checkPage(owner, 'staff-06-audit');
    const reach = await keyboardReachesEverything(owner);
    expect(reach.reached).toBe(reach.controls);
    await owner.getByLabel('Action').selectOption('staff.removed');
    await owner.getByLabel('Action').focus();
    await owner.keyboard.press('Tab');
    await owner.keyboard.press('Enter');
    await owner.waitForURL(/action=staff\.removed/);
    const rows = await owner.locator('main tbody tr').count();
    expect(rows).toBe(1);
    expect(await owner.textContent('main tbody')).toContain('owner@example.com');
    await checkPage(owner, 'staff-07-audit-filtered');
  });

  it('no page broke the Content-Security-Policy', () => {
    expect(cspErrors).toEqual([]);
  });
});
