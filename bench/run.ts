import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { isPostgresUrl } from '../src/db/index.ts';
import {
  benchDocument,
  printTable,
  r1,
  r3,
  type ScenarioResult,
  scenarioResult,
  type WebhookOutcome,
  WITHOUT_REDIS,
} from './document.ts';
import { addEndpoint, retireEndpoint } from './endpoint.ts';
import { type CpuOf, type Load, load, median, type Paired, paired, walk } from './load.ts';
import { ROOT, startChild, startUntilReady, type Child } from './processes.ts';
import { liveCustomers, newPgDatabase, readVersions, seedBench } from './seed.ts';
import { startApi, startCeilings } from './servers.ts';
import { log, SETTINGS } from './settings.ts';

/**
 * `npm run bench`: the API's throughput, latency, CPU, memory and start, each beside a ceiling
 * measured in the same run on the same data; bench/README.md is the method, the scenarios and
 * their ceilings, and the options. This file runs the scenarios in order: settings.ts reads the
 * options, seed.ts makes the data, servers.ts starts the API and the ceilings, load.ts
 * measures (rounds in turns), document.ts writes the JSON document and its table.
 */

async function main() {
  const startedAll = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'venue-bench-'));
  const children: Child[] = [];
  let dropDatabase: (() => Promise<void>) | undefined;
  try {
    // The API runs as `npm start` runs it: the bundle, built from this tree first.
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' });
    if (build.status !== 0 || !existsSync(join(ROOT, 'dist/bundle/server.js'))) {
      throw new Error(`npm run build failed:\n${build.stdout ?? ''}${build.stderr ?? ''}`);
    }

    let databaseUrl = SETTINGS.databaseUrl;
    if (!databaseUrl && SETTINGS.database === 'postgres') {
      const made = await newPgDatabase(SETTINGS.pgServer);
      databaseUrl = made.url;
      dropDatabase = made.drop;
    }
    databaseUrl ??= join(dir, 'bench.sqlite');
    const engine = isPostgresUrl(databaseUrl) ? 'postgres' : 'sqlite';
    // The API's pool size, unless PG_POOL_SIZE says otherwise; the ceiling's pool is as large.
    const poolSize = loadConfig({ PG_POOL_SIZE: process.env.PG_POOL_SIZE }).pgPoolSize;
    const redis = engine === 'postgres' && Boolean(process.env.REDIS_URL);
    // cpu_us_per_request's processes: the API's, and every one of the database server and of
    // Redis on this machine when the API uses them (0 when they run elsewhere).
    const cpuOf = (pid: number | undefined): CpuOf => ({
      ...(pid === undefined ? {} : { api: pid }),
      ...(engine === 'postgres' ? { postgres: 'postgres' } : {}),
      ...(redis ? { redis: 'redis-server' } : {}),
    });
    log(`seeding ${SETTINGS.customers} customers (${engine})…`);
    let shown = 0;
    const { secret, ids, counts, seedSeconds, workspaceId } = await seedBench(
      databaseUrl,
      'Bench',
      SETTINGS.customers,
      (done, total, seconds) => {
        if (done - shown >= total / 10 || done === total) {
          shown = done;
          log(`  seeded ${done} of ${total} customers (${seconds.toFixed(0)} s)`);
        }
      },
    );

    const apiEnv: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      DEMO: 'off',
      LOG_LEVEL: 'warn',
      BASE_URL: '',
      PG_POOL_SIZE: String(poolSize),
    };
    // SQLite serves alone; on PostgreSQL the limits go to Redis when the environment names one.
    if (!redis) apiEnv.REDIS_URL = '';
    // The local receiver is plain http on loopback; without an endpoint these settings do nothing.
    if (SETTINGS.webhook) Object.assign(apiEnv, { WEBHOOK_ALLOW_HTTP: 'on', WEBHOOK_ALLOW_PRIVATE: 'on' });
    // Tracing on, as an operator turns it on: the standard variables, a collector on loopback.
    let sink: Child | undefined;
    if (SETTINGS.tracing !== null) {
      sink = await startChild(['bench/otlp-sink.mjs'], {});
      children.push(sink);
      Object.assign(apiEnv, {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_SERVICE_NAME: 'venue-api-bench',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: String(SETTINGS.tracing),
      });
    }
    const { api, startMs } = await startApi(apiEnv);
    children.push(api);

    const headers = { authorization: `Bearer ${secret}`, 'service-version': '2026-10-08' };
    const one = await fetch(`${api.url}/customers/${ids[0]}`, { headers });
    if (!one.ok) throw new Error(`GET /customers/{id}: ${one.status} ${await one.text()}`);
    const bodyFile = join(dir, 'customer.json');
    writeFileSync(bodyFile, Buffer.from(await one.arrayBuffer()));
    const { raw, bare, insert, writeTx, updateTx, limits, names } = await startCeilings(children, {
      engine,
      databaseUrl,
      workspaceId,
      poolSize,
      bodyFile,
      customerId: ids[0]!,
      redisUrl: redis ? process.env.REDIS_URL : undefined,
    });

    const scenarios: ScenarioResult[] = [];
    const record = (
      name: string,
      measured: Paired,
      ceiling: string,
      also: [string, Load][] = [],
      webhook?: WebhookOutcome,
    ) => {
      scenarios.push(scenarioResult(name, measured, ceiling, also, webhook));
      const { ours, theirs, floors } = measured;
      const others = [...also, ...floors.map((f): [string, Load] => [f.name, f.load])]
        .map(([c, l]) => `; ${c} ${l.rps.toFixed(0)}/s`)
        .join('');
      log(
        `  ${name}: ${ours.rps.toFixed(0)}/s (p99 ${r1(ours.p99)} ms, errors ${ours.errors}); ${ceiling} ${theirs.rps.toFixed(0)}/s${others}`,
      );
    };
    const json = { ...headers, 'content-type': 'application/json' };
    const create: autocannon.Options = {
      url: '',
      method: 'POST',
      headers: { ...json, 'idempotency-key': 'bench-[<id>]' },
      // `[<id>]` becomes a fresh id per request: every POST is a new Idempotency-Key and email.
      body: JSON.stringify({ first_name: 'Bench', email: 'bench-[<id>]@example.com' }),
      idReplacement: true,
    };

    // A second API process with other settings, measured and stopped: what a setting costs.
    const ownApi = async <T>(env: Record<string, string>, measure: (url: string) => Promise<T>): Promise<T> => {
      const other = (await startUntilReady(['dist/bundle/server.js'], env)).child;
      try {
        return await measure(other.url);
      } finally {
        await other.stop();
      }
    };
    // With Redis, an API process of its own without REDIS_URL (limits counted in the process),
    // taking its turns in get_one's and create's rounds: `redis`, its ratios. Stopped after create.
    const noRedisApi = redis
      ? (await startUntilReady(['dist/bundle/server.js'], { ...apiEnv, REDIS_URL: '' })).child
      : null;
    if (noRedisApi) children.push(noRedisApi);
    const withoutRedis = (measure: (url: string) => Promise<Load>): [string, () => Promise<Load>][] =>
      noRedisApi ? [[WITHOUT_REDIS, () => measure(noRedisApi.url)]] : [];

    const randomCustomer: autocannon.Request[] = [
      { setupRequest: (req) => ({ ...req, path: `/customers/${ids[Math.floor(Math.random() * ids.length)]}` }) },
    ];
    const getOneOf = (url: string, cpu?: CpuOf) => load({ url, headers, requests: randomCustomer }, cpu);
    log('get_one…');
    const rawLoad = () => load({ url: raw.url });
    const bareGetOf = (url: string, cpu?: CpuOf) => () => load({ url, requests: randomCustomer }, cpu);
    const bareGet = bareGetOf(bare.url);
    // On SQLite get_one's ceiling stays raw_node_http (the documents before it compare so);
    // on PostgreSQL the bare route is the ceiling, the machine's limit beside it (measured once),
    // and with Redis the bare route behind a limit's counters, in the rounds.
    const limitsFloor: [string, () => Promise<Load>][] = limits
      ? [['bare_fastify_pg_limits', bareGetOf(limits.url, cpuOf(limits.process.pid))]]
      : [];
    const getOne = await paired(
      () => getOneOf(api.url, cpuOf(api.process.pid)),
      engine === 'sqlite' ? rawLoad : bareGet,
      [...limitsFloor, ...withoutRedis((url) => getOneOf(url))],
    );
    if (engine === 'sqlite') record('get_one', getOne, 'raw_node_http', [[names.get, await bareGet()]]);
    else record('get_one', getOne, names.get, [['raw_node_http', await rawLoad()]]);
    // With tracing on, get_one once more in turns against an API process of its own with it
    // off, each round a pair a few seconds apart: what tracing costs, apart from the machine's drift.
    let untraced: Paired | undefined;
    if (sink) {
      const offEnv = Object.fromEntries(Object.entries(apiEnv).filter(([k]) => !k.startsWith('OTEL_')));
      untraced = await ownApi(offEnv, (url) =>
        paired(
          () => getOneOf(api.url),
          () => getOneOf(url),
        ),
      );
      log(`  get_one with tracing over without, each round: ${untraced.ratios.map((r) => r.toFixed(2)).join(', ')}`);
    }

    log('page_100…');
    const pageOf = (url: string) => load({ url: `${url}/customers?limit=${SETTINGS.page}`, headers });
    const page = await paired(
      () => pageOf(api.url),
      () => load({ url: `${bare.url}/customers?limit=${SETTINGS.page}` }),
    );
    record('page_100', page, names.read);

    log('sync…');
    const walkOf = (url: string) => (c: string | undefined) =>
      `${url}/customers?limit=${SETTINGS.page}${c ? `&starting_after=${encodeURIComponent(c)}` : ''}`;
    const bareWalk = (c: string | undefined) =>
      `${bare.url}/customers?limit=${SETTINGS.page}${c ? `&after=${encodeURIComponent(c)}` : ''}`;
    await walk(walkOf(api.url), headers, 20);
    const syncOf = async (url: string, expected = ids.length) => {
      const walked = await walk(walkOf(url), headers);
      if (walked.records !== expected) {
        log(`  sync walked ${walked.records} customers of ${expected}`);
        walked.errors++;
      }
      return walked;
    };
    await walk(bareWalk, {}, 20);
    const sync = await paired(
      () => syncOf(api.url),
      () => walk(bareWalk, {}),
    );
    record('sync', sync, names.read);

    log('create…');
    const createOf = (url: string, cpu?: CpuOf) => load({ ...create, url: `${url}/customers` }, cpu);
    const createCeiling = () => load({ ...create, url: `${insert.url}/customers` });
    // A write's floor beside the one-row ceiling, in the rounds.
    const writeFloor: [string, () => Promise<Load>][] = writeTx
      ? [
          [
            'bare_fastify_pg_write_tx',
            () => load({ ...create, url: `${writeTx.url}/customers` }, cpuOf(writeTx.process.pid)),
          ],
        ]
      : [];
    const created = await paired(() => createOf(api.url, cpuOf(api.process.pid)), createCeiling, [
      ...writeFloor,
      ...withoutRedis((url) => createOf(url)),
    ]);
    record('create', created, names.insert);
    await noRedisApi?.stop();

    if (SETTINGS.webhook) {
      log('create_webhook…');
      const receiver = await startChild(['bench/webhook-receiver.mjs'], {});
      children.push(receiver);
      const deliveries = { delivered: 0, pending: 0, failed: 0 };
      const withEndpoint = async () => {
        // The write path looks its endpoints up on every write: one made now counts at once.
        const endpoint = await addEndpoint(databaseUrl, workspaceId, `${receiver.url}/hooks`);
        const measured = await createOf(api.url, cpuOf(api.process.pid));
        const left = await retireEndpoint(databaseUrl, workspaceId, endpoint);
        for (const k of ['delivered', 'pending', 'failed'] as const) deliveries[k] += left[k];
        return measured;
      };
      // With one round, against create's own measurements; with more, in turns with create.
      const hooked =
        SETTINGS.rounds > 1
          ? await paired(withEndpoint, () => createOf(api.url, cpuOf(api.process.pid)))
          : { ours: await withEndpoint(), theirs: created.ours, ratios: [], floors: [] };
      log(
        `  deliveries: ${deliveries.delivered} delivered, ${deliveries.pending} pending, ${deliveries.failed} failed`,
      );
      // Its ratio is against the create ceiling of create's median round; of_create against
      // the create it took turns with.
      record('create_webhook', { ...hooked, theirs: created.theirs, ratios: [] }, names.insert, [], {
        create_rps: hooked.theirs.rps,
        ...(hooked.ratios.length > 1 ? { of_create_rounds: hooked.ratios } : {}),
        deliveries,
      });
    }

    log('update…');
    // A pool of customers with the version each one has now. A customer is taken from the
    // pool for one PATCH and put back with the ETag of the answer, so it is never in flight
    // twice and If-Match is always the real, current version: any 412 is a real error.
    const pool = await readVersions(api.url, headers, ids, SETTINGS.updatePool);
    let n = 0;
    const updateOf = (url: string, cpu?: CpuOf) =>
      load(
        {
          url,
          method: 'PATCH',
          headers: json,
          requests: [
            {
              setupRequest: (req, context: { taken?: { id: string; etag: string } }) => {
                const taken = pool.shift();
                if (!taken) throw new Error('update: the pool of customers ran dry');
                context.taken = taken;
                return {
                  ...req,
                  path: `/customers/${taken.id}`,
                  headers: { ...json, 'if-match': taken.etag },
                  body: JSON.stringify({ nickname: `bench ${n++}` }),
                };
              },
              onResponse: (status, _body, context: { taken?: { id: string; etag: string } }, resHeaders) => {
                const taken = context.taken;
                if (!taken) return;
                context.taken = undefined;
                const etag = status === 200 ? header(resHeaders as Record<string, unknown>, 'etag') : undefined;
                pool.push(etag ? { id: taken.id, etag } : taken);
              },
            },
          ],
        },
        cpu,
      );
    // An update's own floor beside a create's, in the rounds: the same customers, the same pool.
    const updateFloor: [string, () => Promise<Load>][] = updateTx
      ? [['bare_fastify_pg_update_tx', () => updateOf(updateTx.url, cpuOf(updateTx.process.pid))]]
      : [];
    const updated = await paired(() => updateOf(api.url, cpuOf(api.process.pid)), createCeiling, [
      ...writeFloor,
      ...updateFloor,
    ]);
    record('update', updated, names.insert);

    const apiPeak = api.peakRssMiB();
    const barePeak = bare.peakRssMiB();

    // The same scenarios against N serving processes, the one process stopped first so the
    // two never share the machine; the update pool carries each customer's current ETag over.
    const perWorkers: { name: string; load: Load; one: Load }[] = [];
    if (SETTINGS.workers > 1) {
      await api.stop();
      log(`--workers ${SETTINGS.workers}: serve --workers ${SETTINGS.workers}…`);
      const several = (
        await startUntilReady(['dist/bundle/cli/main.js', 'serve', '--workers', String(SETTINGS.workers)], apiEnv)
      ).child;
      children.push(several);
      const url = several.url;
      // Every worker warms up its key cache and statements before it is measured.
      await load({ url: `${url}/customers?limit=1`, headers });
      const runs: [string, () => Promise<Load>, Load][] = [
        ['get_one', () => getOneOf(url), getOne.ours],
        ['page_100', () => pageOf(url), page.ours],
        // The creates since the seed are customers too: the walk must find them all.
        ['sync', async () => syncOf(url, await liveCustomers(databaseUrl, workspaceId)), sync.ours],
        ['create', () => createOf(url), created.ours],
        ['update', () => updateOf(url), updated.ours],
      ];
      for (const [name, run, one] of runs) {
        const result = await run();
        perWorkers.push({ name, load: result, one });
        log(
          `  ${name} (${SETTINGS.workers} workers): ${result.rps.toFixed(0)}/s (p99 ${r1(result.p99)} ms, errors ${result.errors}); one process ${one.rps.toFixed(0)}/s`,
        );
      }
    }
    // `redis`: the rounds' rates with Redis over those of the API without it.
    const without = (p: Paired) => p.floors.find((f) => f.name === WITHOUT_REDIS)!;
    const doc = benchDocument({
      engine,
      poolSize,
      ...(sink && untraced
        ? {
            tracing: {
              ratio: SETTINGS.tracing,
              get_one_ratio: r3(median(untraced.ratios)),
              get_one_rounds: untraced.ratios.map(r3),
              ...((await (await fetch(`${sink.url}/stats`)).json()) as { exports: number; spans: number }),
            },
          }
        : {}),
      ...(noRedisApi
        ? {
            redis: {
              get_one_ratio: r3(without(getOne).ratio),
              create_ratio: r3(without(created).ratio),
              get_one_rounds: without(getOne).ratios.map(r3),
              create_rounds: without(created).ratios.map(r3),
            },
          }
        : {}),
      customers: counts.customers,
      scenarios,
      memory: { apiMiB: apiPeak, ceiling: names.read, ceilingMiB: barePeak },
      startMs,
      ...(perWorkers.length > 0 ? { workers: { count: SETTINGS.workers, scenarios: perWorkers } } : {}),
    });
    if (!SETTINGS.json) {
      printTable(doc, { counts, seedSeconds, totalSeconds: (performance.now() - startedAll) / 1000 });
    }
    console.log(JSON.stringify(doc));
    if (scenarios.some((s) => s.errors > 0) || perWorkers.some((w) => w.load.errors > 0)) process.exitCode = 1;
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await dropDatabase?.();
    rmSync(dir, { recursive: true, force: true });
    log(`bench took ${((performance.now() - startedAll) / 1000).toFixed(0)} s`);
  }
}

function header(headers: Record<string, unknown> | undefined, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name) return String(v);
  return undefined;
}

await main();
