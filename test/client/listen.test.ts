import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { runCliProcess, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/**
 * venue-api-client's command line (DECISIONS "Events feed"), as a developer runs it against
 * `node dist/bundle/server.js`: `listen` forwards the events `trigger` makes to a receiver that
 * verifies them with the standardwebhooks package. The commands do not depend on the engine,
 * so SQLite is enough.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = 'clients/typescript/dist/cli/main.js';
const HIGH = { requests_per_minute: 100_000, writes_per_minute: 100_000, writes_per_day: 100_000 };

/** What the receiver got: each delivery's id and type, and whether its signature held. */
interface Delivery {
  id: string;
  type: string;
  verified: boolean;
}

/** A local receiver that verifies each delivery with the session secret it is given. */
async function receiver(): Promise<{ url: string; secret: { value: string }; got: Delivery[]; server: Server }> {
  const secret = { value: '' };
  const got: Delivery[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    try {
      const event = new Webhook(secret.value).verify(body, req.headers as Record<string, string>) as Delivery;
      got.push({ id: event.id, type: event.type, verified: req.headers['webhook-id'] === event.id });
      res.writeHead(204).end();
    } catch {
      got.push({ id: String(req.headers['webhook-id']), type: '?', verified: false });
      res.writeHead(400).end();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hooks`, secret, got, server };
}

/** A running `venue-api-client …` process and what it printed so far. */
function startBin(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out, exited };
}

/** Waits (bounded) until `check` holds. */
async function until(check: () => boolean, what: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A port nothing listens on: a connection to it is refused. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  return port;
}

const run = (args: string[], env: Record<string, string>) =>
  runCliProcess(args, { VENUE_API_KEY: '', VENUE_API_URL: '', ...env }, 30_000, { entry: [BIN] });

describe('venue-api-client listen and trigger', { timeout: 90_000 }, () => {
  let storage: TestStorage;
  let server: ServerProcess;
  let env: Record<string, string>;
  let liveKey: string;

  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    // Made before the server starts: serve() seeds a demo workspace into an empty database.
    const ws = await createWorkspace(storage, systemClock, { name: 'Listen', requestsPerMinute: 100_000 });
    const key = async (mode: 'test' | 'live') =>
      (
        await createKey(storage, systemClock, {
          workspaceId: ws.id,
          name: mode,
          mode,
          access: 'read_write',
          limits: HIGH,
        })
      ).secret;
    server = await startServer({ DATABASE_URL: storage.url });
    env = { VENUE_API_KEY: await key('test'), VENUE_API_URL: server.url };
    liveKey = await key('live');
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await storage?.drop();
  });

  it('forwards the events trigger makes, each once, signed with the session secret, and stops on Ctrl-C', async () => {
    const hooks = await receiver();
    const listen = startBin(
      ['listen', '--forward-to', hooks.url, '--events', 'customer.created,customer.deleted'],
      env,
    );
    try {
      await until(
        () => /^Ready\. Signing secret: whsec_\S+\n/.test(listen.out.stdout),
        () => listen.out.stdout + listen.out.stderr,
      );
      hooks.secret.value = /whsec_(\S+)/.exec(listen.out.stdout)![0];
      expect(Buffer.from(hooks.secret.value.slice('whsec_'.length), 'base64')).toHaveLength(24);

      const created = await run(['trigger', 'customer.created'], env);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const createdId = created.stdout.trim();
      expect(createdId).toMatch(/^whe_\w+$/);
      await until(
        () => hooks.got.some((d) => d.id === createdId),
        () => JSON.stringify(hooks.got),
      );
      expect(hooks.got.find((d) => d.id === createdId)).toEqual({
        id: createdId,
        type: 'customer.created',
        verified: true,
      });
      // Printed once the receiver's answer is in, so after the receiver has it.
      const line = new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+ customer\\.created ${createdId} -> 204 \\(\\d+ ms\\)$`, 'm');
      await until(
        () => line.test(listen.out.stdout),
        () => listen.out.stdout,
      );

      // An update, outside --events, is not forwarded; a deletion is. The creation after both
      // comes only after polls that read the earlier events again: none is forwarded twice.
      const updated = (await run(['trigger', 'customer.updated'], env)).stdout.trim();
      const deleted = (await run(['trigger', 'customer.deleted'], env)).stdout.trim();
      const last = (await run(['trigger', 'customer.created'], env)).stdout.trim();
      for (const id of [updated, deleted, last]) expect(id).toMatch(/^whe_\w+$/);
      await until(
        () => [deleted, last].every((id) => hooks.got.some((d) => d.id === id)),
        () => JSON.stringify(hooks.got),
      );
      expect(hooks.got.every((d) => d.verified)).toBe(true);
      expect(hooks.got.map((d) => d.id)).not.toContain(updated);
      expect(hooks.got.map((d) => d.type).sort()).toEqual([
        'customer.created', // trigger customer.created
        'customer.created', // the customer trigger customer.updated made first
        'customer.created', // the customer trigger customer.deleted made first
        'customer.created', // the last trigger customer.created
        'customer.deleted',
      ]);
      expect(new Set(hooks.got.map((d) => d.id)).size).toBe(hooks.got.length);

      listen.child.kill('SIGINT');
      expect(await listen.exited).toBe(0);
      expect(listen.out.stderr).toBe('');
    } finally {
      listen.child.kill('SIGKILL');
      hooks.server.close();
    }
  });

  it('prints a feed it cannot reach and tries again on the next tick, until SIGTERM stops it cleanly', async () => {
    const port = await closedPort();
    const listen = startBin(['listen', '--forward-to', 'http://127.0.0.1:9/hooks'], {
      ...env,
      VENUE_API_URL: `http://127.0.0.1:${port}`,
    });
    try {
      await until(
        () =>
          (listen.out.stderr.match(/^The events feed: no answer from the API: connect ECONNREFUSED /gm) ?? []).length >=
          2,
        () => listen.out.stderr,
      );
      listen.child.kill('SIGTERM');
      expect(await listen.exited).toBe(0);
      expect(listen.out.stderr).not.toMatch(/^\s+at /m);
    } finally {
      listen.child.kill('SIGKILL');
    }
  });

  it('prints the connection error in place of the status when the receiver is down, and goes on', async () => {
    const port = await closedPort();
    const listen = startBin(['listen', '--forward-to', `http://127.0.0.1:${port}/hooks`], env);
    try {
      await until(
        () => listen.out.stdout.startsWith('Ready.'),
        () => listen.out.stderr,
      );
      const id = (await run(['trigger', 'customer.created'], env)).stdout.trim();
      const line = new RegExp(
        `^\\S+ customer\\.created ${id} -> connect ECONNREFUSED 127\\.0\\.0\\.1:${port} \\(\\d+ ms\\)$`,
        'm',
      );
      await until(
        () => line.test(listen.out.stdout),
        () => listen.out.stdout + listen.out.stderr,
      );
      expect(listen.child.exitCode).toBeNull();
      listen.child.kill('SIGINT');
      expect(await listen.exited).toBe(0);
    } finally {
      listen.child.kill('SIGKILL');
    }
  });

  it('stops listening, exit 1, when the feed refuses the key (401) or the types asked for (400)', async () => {
    const badKey = await run(['listen', '--forward-to', 'http://127.0.0.1:9/'], {
      ...env,
      VENUE_API_KEY: 'vw_test_nope',
    });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/^The events feed: 401 unauthorized: /m);
    const badType = await run(['listen', '--forward-to', 'http://127.0.0.1:9/', '--events', 'customer.merged'], env);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toMatch(/^The events feed: 400 invalid_request: .*customer\.merged/m);
  });

  it('refuses a live key for trigger before any request, and names what is missing or wrong in a call', async () => {
    let requests = 0;
    const api = createServer((_req, res) => {
      requests++;
      res.writeHead(500).end();
    });
    api.listen(0, '127.0.0.1');
    await once(api, 'listening');
    const url = `http://127.0.0.1:${(api.address() as { port: number }).port}`;
    try {
      const live = await run(['trigger', 'customer.created', '--key', liveKey, '--url', url], {});
      expect(live.code).toBe(1);
      expect(live.stderr).toContain('test key (vw_test_…) only; this is a live key (vw_live_…)');
      expect(live.stdout).toBe('');
      expect(requests).toBe(0);
    } finally {
      api.close();
    }
    const cases: [string[], Record<string, string>, string][] = [
      [['trigger', 'customer.created'], { VENUE_API_URL: server.url }, 'No API key: set VENUE_API_KEY or pass --key.'],
      [['listen', '--forward-to', 'http://127.0.0.1:9/'], { VENUE_API_KEY: env.VENUE_API_KEY! }, 'No API address'],
      [['listen'], env, 'listen needs --forward-to URL'],
      [['listen', '--forward-to', 'ftp://example.com/'], env, '--forward-to must be an http:// or https:// URL'],
      [['trigger', 'booking.created'], env, 'trigger takes one event type: customer.created, customer.updated'],
      [['trigger', 'customer.created', '--events', 'x'], env, 'are options of listen, not of trigger'],
      [['listen', '--forward', 'x'], env, "Unknown option '--forward'"],
      [['serve'], env, 'Unknown command: serve'],
    ];
    for (const [args, vars, message] of cases) {
      const res = await run(args, vars);
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr, args.join(' ')).toContain(message);
      expect(res.stderr, args.join(' ')).not.toMatch(/^\s+at /m);
    }
  });
});
