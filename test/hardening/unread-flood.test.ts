import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';
import { open } from './raw-http.ts';

/**
 * The built server against clients that pipeline requests and never read an answer: 40
 * connections each send 100 GET /customers?limit=100 at once (pages of about 170 KB) and read
 * nothing. The kernel takes a few MiB per connection, and the rest used to queue in the
 * process, other clients waiting behind it all, the connections open for good. Memory stays
 * bounded, other clients are answered meanwhile, and the server closes the connections once
 * nothing has moved on them for CONNECTION_IDLE_TIMEOUT_MS. Fewer connections than the issue's
 * 200: the kernel takes some 4 MiB of answers on each before anything stays in the process,
 * and producing that for 200 would take most of a minute. Linux only: the process's memory
 * and sockets are read from /proc.
 */
const CONNECTIONS = 40;
const PIPELINED = 100;
const IDLE_TIMEOUT_MS = 3_000;
/** Well above what the server reaches now, far below what it reached without backpressure. */
const GROWTH_BOUND_MIB = 400;

const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Of these client ports, how many the server still has an established connection with. */
function establishedWith(serverPort: number, clientPorts: Set<number>): number {
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, remote, state]) => {
      if (!local || !remote || state !== '01') return false;
      const port = (address: string) => Number.parseInt(address.split(':')[1]!, 16);
      return port(local) === serverPort && clientPorts.has(port(remote));
    }).length;
}

/** Fields at their longest, so that 100 pipelined pages are more than the kernel holds. */
const longCustomer = (i: number) => ({
  first_name: `Flood${i}`.padEnd(100, 'f'),
  last_name: 'L'.repeat(100),
  nickname: 'N'.repeat(100),
  company: 'C'.repeat(200),
  email: `flood-${i}@example.com`,
  address: {
    line1: 'A'.repeat(200),
    line2: 'B'.repeat(200),
    suburb: 'S'.repeat(100),
    state: 'T'.repeat(100),
    postcode: '2000',
    country: 'K'.repeat(100),
  },
});

describe('the built server with pipelines nobody reads', () => {
  let storage: TestStorage;
  let server: ServerProcess;
  let auth: Record<string, string>;
  let customerId: string;
  const flood: Socket[] = [];

  beforeAll(async () => {
    storage = await freshStorage('sqlite');
    const ws = await createWorkspace(storage, systemClock, { name: 'Flood', requestsPerMinute: 1_000_000 });
    const roomy = { requests_per_minute: 1_000_000, requests_per_day: 1_000_000, writes_per_minute: 10_000 };
    const { secret } = await createKey(storage, systemClock, {
      workspaceId: ws.id,
      name: 'flood',
      mode: 'test',
      access: 'read_write',
      limits: roomy,
    });
    auth = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
    server = await startServer({
      DATABASE_URL: storage.url,
      DEMO: 'off',
      CONNECTION_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
    });
    for (let batch = 0; batch < 30; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, j) => {
          const res = await fetch(`${server.url}/customers`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `flood-${batch}-${j}` },
            body: JSON.stringify(longCustomer(batch * 10 + j)),
          });
          if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
          customerId = ((await res.json()) as { id: string }).id;
        }),
      );
    }
  }, 60_000);

  afterAll(async () => {
    for (const socket of flood) socket.destroy();
    await server?.stop();
    await storage?.drop();
  });

  it('keeps its memory bounded, answers other clients, and closes the connections once nothing moves', async () => {
    const pid = server.child.pid!;
    const port = Number(new URL(server.url).port);
    for (let i = 0; i < 5; i++)
      await fetch(`${server.url}/customers?limit=100`, { headers: auth }).then((r) => r.text());
    const before = rssMiB(pid);

    const request = `GET /customers?limit=100 HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.authorization}\r\n\r\n`;
    for (let i = 0; i < CONNECTIONS; i++) {
      const socket = await open(port);
      socket.pause();
      socket.on('error', () => {});
      flood.push(socket);
    }
    const ports = new Set(flood.map((s) => s.localPort!));
    const began = Date.now();
    for (const socket of flood) socket.write(request.repeat(PIPELINED));

    // Other clients meanwhile: each answered (or the fetch aborts) within a few seconds.
    let peak = before;
    let probes = 0;
    let slowest = 0;
    let firstClosed: number | null = null;
    while (establishedWith(port, ports) > 0) {
      expect(Date.now() - began, 'the unread connections are still open').toBeLessThan(90_000);
      const start = Date.now();
      const health = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(10_000) });
      const customer = await fetch(`${server.url}/customers/${customerId}`, {
        headers: auth,
        signal: AbortSignal.timeout(10_000),
      });
      expect([health.status, customer.status]).toEqual([200, 200]);
      await Promise.all([health.text(), customer.text()]);
      slowest = Math.max(slowest, Date.now() - start);
      probes++;
      peak = Math.max(peak, rssMiB(pid));
      if (firstClosed === null && establishedWith(port, ports) < CONNECTIONS) firstClosed = Date.now() - began;
      await new Promise((r) => setTimeout(r, 250));
    }
    // All of them closed at once during the last wait: no later than now, and after the check before it.
    firstClosed ??= Date.now() - began;
    const summary = `RSS ${before.toFixed(0)} -> peak ${peak.toFixed(0)} MiB; ${probes} probes, slowest ${slowest} ms; first closed after ${firstClosed} ms`;
    expect(peak - before, summary).toBeLessThan(GROWTH_BOUND_MIB);
    // Nothing was cut before it had been idle for the timeout.
    expect(firstClosed, summary).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS);
    expect(server.child.exitCode, server.output()).toBeNull();
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  }, 120_000);
});
