import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage, signedInPage } from '../helpers/browser.ts';
import { systemClock } from '../../src/lib/time.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { addOwner, OWNER_EMAIL, OWNER_PASSWORD } from '../helpers/staff.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * The console's Webhooks pages in Chromium (docs/console.md): an endpoint made by form, its
 * secret shown once, "Send test event" reaching a receiver that verifies it with the official
 * `standardwebhooks` package, the delivery listed, "Resend" from the keyboard, and the endpoint
 * deleted from the keyboard through its confirmation page. axe-core
 * finds nothing serious on each page; screenshots go to test/e2e/screenshots/.
 */

describe('webhook pages in Chromium', { timeout: 90_000 }, () => {
  let storage: TestStorage;
  let server: ServerProcess;
  let receiver: Server;
  let receiverUrl: string;
  let browser: Browser;
  let page: Page;
  const received: { body: string; headers: IncomingHttpHeaders }[] = [];
  const cspErrors: string[] = [];

  const deliveries = async (count: number) => {
    const deadline = Date.now() + 20_000;
    while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return received;
  };

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      req.on('end', () => {
        received.push({ body, headers: req.headers });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    storage = await freshStorage('sqlite');
    const ws = await createWorkspace(storage, systemClock, { name: 'Hook Venues' });
    await addOwner(storage, systemClock, ws.id);
    server = await startServer({
      DATABASE_URL: storage.url,
      DEMO: 'off',
      WEBHOOK_ALLOW_HTTP: 'on',
      WEBHOOK_ALLOW_PRIVATE: 'on',
    });
    ({ browser, page } = await signedInPage(server.url, OWNER_EMAIL, OWNER_PASSWORD, cspErrors));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await storage?.drop();
    await new Promise((r) => receiver?.close(r));
  });

  it('adds an endpoint, shows its secret once, sends a verifiable test event, and resends it from the keyboard', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).waitFor();
    await checkPage(page, 'webhooks-01-list');
    await page.getByLabel('URL').fill(receiverUrl);
    await page.getByLabel('Mode').selectOption('test');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await checkPage(page, 'webhooks-02-secret-once');
    const endpointUrl = page.url();
    await page.reload();
    expect(await page.content()).not.toContain(secret);

    await page.getByRole('button', { name: 'Send test event' }).click();
    const [first] = await deliveries(1);
    expect(first).toBeDefined();
    const event = new Webhook(secret).verify(first!.body, first!.headers as Record<string, string>) as {
      type: string;
      livemode: boolean;
    };
    expect(event).toMatchObject({ type: 'webhook.test', livemode: false });

    // The delivery is listed once the worker recorded it.
    const deadline = Date.now() + 20_000;
    let row = page.getByRole('row').filter({ hasText: 'webhook.test' });
    while (Date.now() < deadline) {
      await page.goto(endpointUrl);
      row = page.getByRole('row').filter({ hasText: 'webhook.test' });
      if ((await row.count()) > 0 && /delivered/.test(await row.innerText())) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await row.innerText()).toMatch(/webhook\.test\s+delivered\s+1\s+204/);
    await checkPage(page, 'webhooks-03-delivered');

    await row.getByRole('button', { name: 'Resend' }).focus();
    await page.keyboard.press('Enter');
    // The form's answer brings the page back; the next test navigates only once it has.
    await page.waitForURL(/[?&]done=resend/);
    const both = await deliveries(2);
    expect(both).toHaveLength(2);
    expect(both[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(cspErrors).toEqual([]);
  });

  it('deletes the endpoint from the keyboard through a confirmation page that says what goes with it', async () => {
    await page.goto(`${server.url}/console/webhooks`);
    await page.getByRole('link', { name: receiverUrl }).click();
    const endpointUrl = page.url();
    // Tabbing from the top of the page reaches "Delete"; Enter opens the confirmation, deleting nothing.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let onDelete = false;
    for (let i = 0; i < 60 && !onDelete; i++) {
      await page.keyboard.press('Tab');
      onDelete = await page.evaluate(() => document.activeElement?.textContent?.trim() === 'Delete');
    }
    expect(onDelete).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: `Delete the webhook endpoint ${receiverUrl}?` }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`${new URL(endpointUrl).pathname}/delete`);
    const text = await page.locator('main').innerText();
    // The resent delivery may still be on its way to being recorded as delivered.
    expect(text).toMatch(/1 delivery recorded, [01] of them waiting to be sent/);
    expect(text).toContain('This cannot be undone');
    await checkPage(page, 'webhooks-04-delete-confirm');

    // Cancel goes back with the endpoint still there.
    await page.getByRole('link', { name: 'Cancel' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(endpointUrl);
    await page.goto(`${endpointUrl}/delete`);

    // Shift+Tab from Cancel lands on the form's button: the confirmation is all keyboard.
    await page.getByRole('link', { name: 'Cancel' }).focus();
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Delete endpoint');
    await page.keyboard.press('Enter');
    await page.getByText('The endpoint was deleted').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/webhooks');
    expect(await page.getByRole('link', { name: receiverUrl }).count()).toBe(0);
    await checkPage(page, 'webhooks-05-deleted');
    const gone = await storage.db.selectFrom('webhook_endpoints').select('id').execute();
    expect(gone).toEqual([]);
    expect(cspErrors).toEqual([]);
  });
});
