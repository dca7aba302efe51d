import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDE_TITLES } from '../../src/http/guides.ts';
import { systemClock } from '../../src/lib/time.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * GET /docs in a real browser (Debian's Chromium through playwright-core) against
 * the process `npm start` runs. The reference renders from the served /openapi.json, shows
 * every operation and every guide, and asks nothing of any other host: no CDN, no fonts, no
 * telemetry. The page does not depend on the engine, so one is enough.
 */
type Doc = { paths: Record<string, Record<string, { summary: string }>> };

describe('the API reference page at /docs', { timeout: 90_000 }, () => {
  let storage: TestStorage;
  let server: ServerProcess;
  let browser: Browser;

  beforeAll(async () => {
    storage = await freshStorage(ENGINES[0]!);
    // A workspace before the start, so serve() does not spend time seeding a demo.
    await createWorkspace(storage, systemClock, { name: 'Docs' });
    server = await startServer({ DATABASE_URL: storage.url });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await storage?.drop();
  });

  it('renders every operation and guide, with every request to this server and no CSP violation', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as Doc;
    const summaries = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.summary));
    expect(summaries.length).toBeGreaterThan(30);

    const page = await browser.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));

    const res = await page.goto(`${server.url}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    const wanted = [...summaries, ...GUIDE_TITLES];
    await page.waitForFunction((texts) => texts.every((text) => document.body.innerText.includes(text)), wanted, {
      timeout: 30_000,
    });
    const text = await page.evaluate(() => document.body.innerText);
    for (const summary of summaries) expect(text).toContain(summary);
    // The guides' content, not only their headings: a curl example and an error code.
    expect(text).toContain('Idempotency-Key');
    expect(text).toContain('precondition_failed');
    // A grace second for late requests (fonts, telemetry) before counting them; Scalar keeps
    // Playwright's 'networkidle' from ever firing, so that cannot be waited for instead.
    await page.waitForTimeout(1_000);

    expect(requests.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    expect(requests).toContain(`${server.url}/openapi.json`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows an operation's placeholders as written and its error answers by status, with their codes", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs`);
    // The reference renders an operation when it is reached: go there as a reader would.
    await page.getByText('Update a customer', { exact: true }).first().click();
    const operation = page.locator('[id$="tag/customers/PATCH/customers/{id}"]');
    await operation.getByText('precondition_failed').first().waitFor({ timeout: 30_000 });
    const text = await operation.innerText();
    // A bare <version> in the markdown would be taken for an HTML tag and vanish.
    expect(text).toContain('The ETag you read, "<version>"');
    for (const status of ['400', '401', '403', '404', '409', '412', '413', '415', '429', '500', '503']) {
      await expect(operation.locator(`[id$=".responses.${status}"]`).count(), status).resolves.toBe(1);
    }
    expect(text).not.toMatch(/\b4XX\b/);
    for (const code of ['unsupported_version', 'key_paused', 'not_found', 'conflict', 'precondition_failed'])
      expect(text).toContain(code);
    // The Limits guide says what pauses a key and how a sync avoids it.
    const guide = await page.evaluate(() => document.body.innerText);
    expect(guide).toContain('Unusual activity');
    expect(guide).toContain('Do not re-walk every customer to find the deleted ones.');
    await page.close();
  });
});
