import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** What the console's Chromium tests share: axe-core on a page with its screenshot, and signing in. */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = fileURLToPath(new URL('../e2e/screenshots/', import.meta.url));

/** A screenshot of the page as it is (test/e2e/screenshots/NAME.png), and no serious or critical axe-core finding on it. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
  // Evaluated rather than added as a <script>: the console's CSP (rightly) refuses inline scripts.
  await page.evaluate(AXE);
  const { violations, passes } = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[]; passes: unknown[] }> } }).axe;
    const result = await axe.run();
    return { violations: result.violations, passes: result.passes.length };
  })) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[]; passes: number };
  expect(passes, `${name}: axe ran its rules`).toBeGreaterThan(10);
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious, name).toEqual([]);
}

/** Signs in through the console's form, as a person would. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/console/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Debian's Chromium with one page signed in as `email`, on the console's keys page; every
 * message of the page that reports a Content-Security-Policy refusal goes into `cspErrors`.
 */
export async function signedInPage(
  baseUrl: string,
  email: string,
  password: string,
  cspErrors: string[],
): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  const context = await browser.newContext();
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  await signIn(page, baseUrl, email, password);
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  return { browser, page };
}
