import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';

/** A port free right now, for a process that takes its port from its arguments. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

function promtool(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile('promtool', ['check', 'metrics'], (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
    child.stdin!.end(text);
  });
}

const TOOLS = 'Debian’s prometheus package (bash scripts/ensure-tools.sh installs it)';

/**
 * docs/operations.md "Health, readiness and metrics": /metrics passes promtool's checks under
 * load, and a real Prometheus scrapes it with METRICS_TOKEN and answers a query from it.
 */
describe('/metrics for Prometheus', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'venue-prometheus-'));
  const token = 'scrape-token-Qm7tR4vZx2';
  let server: ServerProcess;
  let secret: string;
  let prometheus: ChildProcess | null = null;

  beforeAll(async () => {
    // A file, so the WAL's gauge is there; a schedule, so the backups' metrics are.
    server = await startServer({
      DATABASE_URL: join(dir, 'venue.sqlite'),
      METRICS_TOKEN: token,
      BACKUP_INTERVAL_MINUTES: '60',
    });
    // The demo's banner is written just after the listening line, so it may not be read yet.
    secret = await vi.waitFor(
      () => {
        const found = /Bearer (vw_test_\w+)/.exec(server.output())?.[1];
        expect(found, server.output()).toBeDefined();
        return found!;
      },
      { timeout: 10_000, interval: 50 },
    );
  });
  afterAll(async () => {
    prometheus?.kill('SIGKILL');
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes promtool check metrics after every kind of answer', async () => {
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${secret}`, ...init.headers } });
    await Promise.all([
      ...Array.from({ length: 50 }, () => call('/customers')),
      call('/customers/cus_0000000000000000000000'),
      call('/customers', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }),
      fetch(`${server.url}/customers`),
      fetch(`${server.url}/nowhere`),
    ]);
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    for (const name of ['venue_api_build_info', 'venue_api_sqlite_wal_bytes', 'venue_api_backup_last_size_bytes']) {
      expect(text).toContain(`# TYPE ${name} gauge`);
    }
    const checked = await promtool(text).catch((err: Error) => ({ code: -1, output: `${err.message}: ${TOOLS}` }));
    expect(checked).toEqual({ code: 0, output: '' });
  });

  it('is scraped by a real Prometheus with the token, which answers a query from it', async () => {
    const port = await freePort();
    const target = new URL(server.url).host;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        '  - job_name: venue-api',
        `    authorization: { credentials: ${token} }`,
        `    static_configs: [{ targets: ['${target}'] }]`,
      ].join('\n'),
    );
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    const spawned = new Promise<void>((_, reject) =>
      prometheus!.once('error', (err) => reject(new Error(`${err.message}: ${TOOLS}`))),
    );
    const query = async (q: string) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(q)}`).catch(() => null);
      if (!res?.ok) return [];
      return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } })
        .data.result;
    };
    const scraped = (async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const [up] = await query('up{job="venue-api"}');
        const [build] = await query('venue_api_build_info');
        if (up?.value[1] === '1' && build) return build.metric;
        if (Date.now() > deadline) throw new Error('Prometheus did not scrape the server within 60 s');
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const build = await Promise.race([scraped, spawned]);
    expect(build).toMatchObject({ job: 'venue-api', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    const [requests] = await query('sum(venue_api_http_requests_total{route="/customers"})');
    expect(Number(requests?.value[1])).toBeGreaterThanOrEqual(50);
  });
});
