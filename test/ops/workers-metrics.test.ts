import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/lib/time.ts';
import { createKey } from '../../src/resources/keys/key.service.ts';
import { createWorkspace } from '../../src/resources/workspaces/workspace.service.ts';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { freshStorage, type TestStorage } from '../helpers/storage.ts';

/** Every sample of a metric in Prometheus text: its labels as written, and its value. */
function samples(text: string, name: string): { labels: string; value: number }[] {
  const line = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm');
  return [...text.matchAll(line)].map((m) => ({ labels: m[1] ?? '', value: Number(m[2]) }));
}

const total = (text: string, name: string) => samples(text, name).reduce((sum, s) => sum + s.value, 0);

/**
 * /metrics under `--workers 3` (docs/operations.md "Several processes"): whichever worker a
 * scrape reaches answers for the whole server.
 */
describe('/metrics of serve --workers 3', { timeout: 120_000 }, () => {
  let storage: TestStorage;
  let server: ServerProcess;
  let secret: string;
  const token = 'metrics-token-5bV8qR2wLx';

  beforeAll(async () => {
    storage = await freshStorage('postgres');
    const ws = await createWorkspace(storage, systemClock, { name: 'Scraped', requestsPerMinute: 1_000_000 });
    const limits = { requests_per_minute: 1_000_000, requests_per_day: 10_000_000 };
    secret = (
      await createKey(storage, systemClock, { workspaceId: ws.id, name: 'k', mode: 'live', access: 'read', limits })
    ).secret;
    server = await startServer({ DATABASE_URL: storage.url, WORKERS: '3', DEMO: 'off', METRICS_TOKEN: token }, 60_000);
    // The server is up once one worker listens; what follows counts on all three.
    const deadline = Date.now() + 30_000;
    while ((await answering()).size < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await storage?.close();
  });

  /** The pid of the worker that answered /health. */
  const health = async () => {
    const res = await fetch(`${server.url}/health`, { headers: { connection: 'close' } });
    return ((await res.json()) as { pid: number }).pid;
  };
  /** The workers that answer /health within `tries` requests, or as soon as all three have. */
  const answering = async (tries = 60) => {
    const pids = new Set<number>();
    for (let i = 0; i < tries && pids.size < 3; i++) pids.add(await health());
    return pids;
  };

  const scrape = async () => {
    const res = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${token}`, connection: 'close' },
    });
    expect(res.status).toBe(200);
    return res.text();
  };

  it('sums counters over the workers, so no scrape sees one go down, and labels what is each worker’s own', async () => {
    // Each request on a connection of its own, so the cluster spreads them over the workers.
    const load = () =>
      Promise.all(
        Array.from({ length: 30 }, () =>
          fetch(`${server.url}/customers`, {
            headers: { authorization: `Bearer ${secret}`, connection: 'close' },
          }).then((res) => res.arrayBuffer()),
        ),
      );
    let last = -1;
    let text = '';
    for (let i = 0; i < 8; i++) {
      await load();
      text = await scrape();
      const requests = total(text, 'venue_api_http_requests_total');
      expect(requests).toBeGreaterThan(last);
      last = requests;
    }
    // Every answered request of the load is counted once, whichever worker answered it.
    const customers = samples(text, 'venue_api_http_requests_total').filter((s) =>
      s.labels.includes('route="/customers"'),
    );
    expect(customers.reduce((sum, s) => sum + s.value, 0)).toBe(240);
    // A process's own gauges carry its worker; the database's are there once.
    const workers = new Set(
      samples(text, 'process_resident_memory_bytes').map((s) => /worker="(\d+)"/.exec(s.labels)?.[1]),
    );
    expect(workers.size).toBe(3);
    expect(
      samples(text, 'venue_api_db_pool_connections').filter((s) => s.labels.includes('state="idle"')),
    ).toHaveLength(3);
    expect(samples(text, 'venue_api_webhook_queue_depth')).toEqual([{ labels: '', value: 0 }]);
    expect(samples(text, 'venue_api_keys_paused')).toHaveLength(1);
    expect(samples(text, 'venue_api_build_info')).toHaveLength(1);
  });

  it('answers every scrape while a killed worker is replaced, from the workers that listen', async () => {
    const pids = await answering();
    expect(pids.size).toBe(3);
    const victim = [...pids][0]!;
    process.kill(victim, 'SIGKILL');
    // Once the supervisor has seen the death, no connection goes to the dead worker; the
    // replacement is connected to the supervisor long before it listens, and every scrape
    // until it answers must come from the two that do.
    const exited = Date.now() + 10_000;
    while (!server.output().includes('worker exited; replacing it') && Date.now() < exited) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const statuses: number[] = [];
    let replaced = false;
    const deadline = Date.now() + 30_000;
    while (!replaced && Date.now() < deadline) {
      const res = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${token}`, connection: 'close' },
        signal: AbortSignal.timeout(10_000),
      });
      statuses.push(res.status);
      await res.arrayBuffer();
      const seen = await answering(12);
      replaced = seen.size === 3 && !seen.has(victim);
    }
    expect(replaced).toBe(true);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const workers = new Set(
      samples(await scrape(), 'process_resident_memory_bytes').map((s) => /worker="(\d+)"/.exec(s.labels)?.[1]),
    );
    expect(workers.size).toBe(3);
  });
});
