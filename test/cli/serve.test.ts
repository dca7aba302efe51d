import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_META } from '../../src/demo.ts';
import { verifyPassword } from '../../src/lib/password.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer } from '../helpers/server-process.ts';
import { ENGINES, freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * `venue-api serve` and `npm start` (both run serve()): the first start on an empty
 * database makes a demo and prints a curl command that works; later starts point back.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function until(
  output: () => string,
  pattern: RegExp,
  what: string,
  timeoutMs = 45_000,
): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = pattern.exec(output());
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms:\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function serveCli(databaseUrl: string) {
  const child = spawn(process.execPath, ['bin/venue-api.js', 'serve', '--port', '0', '--host', '127.0.0.1'], {
    cwd: ROOT,
    // vitest puts Vite's BASE_URL=/ in the environment; a real shell has none.
    env: { ...process.env, BASE_URL: '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    output: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const countWorkspaces = async (storage: TestStorage) =>
  Number(
    (
      await storage.db
        .selectFrom('workspaces')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.each(ENGINES)('first start on %s', { timeout: 90_000 }, (engine) => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await freshStorage(engine);
  });
  afterAll(async () => storage?.drop());

  it('on an empty database makes a demo and prints a curl command that answers two customers', async () => {
    const server = serveCli(storage.url);
    try {
      const [, curl] = await until(server.output, /\n {2}(curl -s .*)\n/, 'curl command');
      const [, secret, version, url] = /Bearer (vw_test_\w+)" -H "Service-Version: ([\d-]+)" "([^"]+)"/.exec(curl!)!;
      const res = await fetch(url!, { headers: { authorization: `Bearer ${secret}`, 'service-version': version! } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: Array<{ object: string; livemode: boolean }>; has_more: boolean };
      expect(body.data).toHaveLength(2);
      expect(body.data.every((c) => c.object === 'customer' && c.livemode === false)).toBe(true);
      expect(body.has_more).toBe(true);

      const [, email, password] = /Owner: {5}(\S+) \/ (\S+)/.exec(server.output())!;
      const owner = await storage.db
        .selectFrom('staff')
        .selectAll()
        .where('email', '=', email!)
        .executeTakeFirstOrThrow();
      expect(owner.role).toBe('owner');
      expect(await verifyPassword(password!, owner.password_hash)).toBe(true);
      // The banner names the console, and the printed login signs in there.
      const [, consoleUrl] = /Console: {3}(\S+)/.exec(server.output())!;
      const form = await fetch(`${consoleUrl}/sign-in`);
      const cookie = form.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const signIn = await fetch(`${consoleUrl}/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, email: email!, password: password! }),
      });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.getSetCookie().some((c) => c.startsWith('venue_console_session='))).toBe(true);
      const meta = await storage.db
        .selectFrom('meta')
        .select('value')
        .where('name', '=', DEMO_META)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(meta.value)).toMatchObject({
        workspace_id: owner.workspace_id,
        workspace_name: 'Demo Venues',
        owner_email: email,
      });
    } finally {
      await server.stop();
    }
  });

  it('a later start reuses the demo, cannot show the secret again and says how to make a key', async () => {
    const server = await startServer({ DATABASE_URL: storage.url, BASE_URL: '' });
    try {
      const [banner] = await until(server.output, /-{72}\n[\s\S]*?-{72}/, 'banner');
      expect(banner).toMatch(/Demo workspace "Demo Venues" \(wsp_\w{22}\)/);
      expect(banner).toMatch(/was printed at the first start/);
      expect(banner).toMatch(
        /npx venue-api keys create --workspace wsp_\w{22} --name "My key" --mode test --access read_write/,
      );
      expect(server.output()).not.toMatch(/vw_test_/);
      expect(await countWorkspaces(storage)).toBe(1);
    } finally {
      await server.stop();
    }
  });

  it('a database that already has workspaces gets no demo', async () => {
    const other = await freshStorage(engine);
    try {
      await createWorkspace(other, Date.now, { name: 'Real tenant' });
      const server = await startServer({ DATABASE_URL: other.url, BASE_URL: '' });
      try {
        await until(server.output, /Venue API listening at http:\/\/127\.0\.0\.1:\d+\n/, 'listening line');
        expect(server.output()).not.toMatch(/demo/i);
        expect(await countWorkspaces(other)).toBe(1);
      } finally {
        await server.stop();
      }
    } finally {
      await other.drop();
    }
  });

  it('DEMO=off starts an empty database without a demo', async () => {
    const other = await freshStorage(engine);
    try {
      const server = await startServer({ DATABASE_URL: other.url, DEMO: 'off' });
      try {
        await until(server.output, /Venue API listening at http:\/\/127\.0\.0\.1:\d+\n/, 'listening line');
        expect(server.output()).not.toMatch(/vw_test_|demo/i);
        expect(await countWorkspaces(other)).toBe(0);
      } finally {
        await server.stop();
      }
    } finally {
      await other.drop();
    }
  });
});
