import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { checkPage, signedInPage } from '../helpers/browser.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { addOwner, OWNER_EMAIL, OWNER_PASSWORD } from '../helpers/staff.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The request log, a roll and allowed addresses in Chromium (docs/console.md): a request found
 * by the id its answer carried, its bodies masked for a masked key, the key's Requests tab,
 * and the roll and addresses pages, by keyboard, with axe-core finding nothing serious.
 */
describe('the request log and key rolling in Chromium', { timeout: 90_000 }, () => {
  let storage: TestStorage;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let keyId: string;
  let secret: string;
  let requestId: string;
  const cspErrors: string[] = [];

  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    const ws = await createWorkspace(storage, systemClock, { name: 'Logged Venues' });
    await addOwner(storage, systemClock, ws.id);
    const made = await createKey(storage, systemClock, {
      workspaceId: ws.id,
      name: 'Masked sync',
      mode: 'test',
      access: 'read_write',
      contactsMasked: true,
    });
    keyId = made.key.id;
    secret = made.secret;
    server = await startServer({ DATABASE_URL: storage.url, DEMO: 'off' });
    const res = await fetch(`${server.url}/customers`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${secret}`,
        'Content-Type': 'application/json',
        'Service-Version': '2026-10-08',
        'Idempotency-Key': 'e2e-log-1',
      },
      body: JSON.stringify({ first_name: 'Grace', email: 'grace@example.com', shoe_size: 9 }),
    });
    expect(res.status).toBe(400);
    requestId = res.headers.get('request-id')!;
    ({ browser, page } = await signedInPage(server.url, OWNER_EMAIL, OWNER_PASSWORD, cspErrors));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await storage?.drop();
  });

  it('a request id pasted into the keys page shows the request with both bodies, masked, within a second', async () => {
    const search = page.getByLabel('Find a request by its id');
    await search.focus();
    await page.keyboard.type(requestId);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'POST /customers' }).waitFor();
    const main = await page.textContent('main');
    expect(main).toContain(requestId);
    expect(main).toContain('invalid_request');
    expect(main).toContain('g***@example.com');
    expect(main).not.toContain('grace@example.com');
    expect(main).toContain('shoe_size');
    await checkPage(page, 'requests-01-one-request');
    expect(cspErrors).toEqual([]);
  });

  it('the key’s Requests tab lists it and filters by status class', async () => {
    await page.goto(`${server.url}/console/keys/${keyId}`);
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.getByRole('link', { name: requestId }).waitFor();
    await page.getByLabel('Status').selectOption('2xx');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('No requests match these filters').waitFor();
    await checkPage(page, 'requests-02-key-requests');
    expect(cspErrors).toEqual([]);
  });

  it('rolls the secret by keyboard: the new one shown once, both working, the key’s page saying until when', async () => {
    await page.goto(`${server.url}/console/keys/${keyId}`);
    await page.getByRole('button', { name: 'Roll secret' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('radio', { name: '1 hour' }).check();
    await checkPage(page, 'requests-03-roll');
    await page.getByRole('button', { name: 'Roll secret' }).focus();
    await page.keyboard.press('Enter');
    const rolled = await page.getByLabel('Secret').inputValue();
    expect(rolled).toMatch(/^vw_test_/);
    await checkPage(page, 'requests-04-rolled');
    for (const s of [secret, rolled]) {
      const res = await fetch(`${server.url}/key`, { headers: { Authorization: `Bearer ${s}` } });
      expect(res.status).toBe(200);
    }
    await page.goto(`${server.url}/console/keys/${keyId}`);
    expect(await page.textContent('main')).toMatch(/Previous secret\s*works until/);
  });

  it('sets allowed addresses, refusing one that is not', async () => {
    await page.goto(`${server.url}/console/keys/${keyId}/addresses`);
    await page.getByLabel('Allowed addresses').fill('203.0.113.0/24\nnot-an-address');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('"not-an-address" is not an IPv4 or IPv6 address or CIDR range').waitFor();
    await checkPage(page, 'requests-05-addresses-refused');
    await page.getByLabel('Allowed addresses').fill('203.0.113.0/24\n127.0.0.1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The key was given its allowed addresses.').waitFor();
    expect(await page.textContent('main')).toContain('203.0.113.0/24, 127.0.0.1');
    expect(cspErrors).toEqual([]);
  });
});
