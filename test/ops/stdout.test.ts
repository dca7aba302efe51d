import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A log shipper reads stdout as JSON lines: the human banner (address, demo sign-in, key) goes to stderr. */
describe('what a first start prints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-stdout-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stdout holds only JSON log lines; the banner with the test key is on stderr; /metrics names the build', async () => {
    const child = spawn(process.execPath, ['dist/bundle/server.js'], {
      cwd: ROOT,
      env: { ...process.env, BASE_URL: '', HOST: '127.0.0.1', PORT: '0', DATABASE_URL: join(dir, 'first.sqlite') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      await vi.waitFor(() => expect(stderr).toMatch(/Test key: {2}vw_test_/), { timeout: 60_000, interval: 100 });
      expect(stderr).toMatch(/Venue API listening at http:\/\/127\.0\.0\.1:\d+/);
      const lines = stdout.split('\n').filter((line) => line.trim() !== '');
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      expect(stdout).not.toContain('vw_test_');
      // The bundle knows which build it is: the package's version and the commit it was built from.
      const url = /Venue API listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr)![1];
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^venue_api_build_info\{version="\d+\.\d+\.\d+",commit="([0-9a-f]{12}|unknown)"\} 1$/m);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 90_000);
});
