import type { SeedCounts } from '../src/seed/seed.service.ts';
import type { Load, Paired } from './load.ts';
import { SETTINGS } from './settings.ts';

/** The bench's JSON document (bench/README.md), built from what the scenarios measured, and its table. */

/** The floor that is the API without REDIS_URL: its ratios are `redis`, not a ceiling under `also`. */
export const WITHOUT_REDIS = 'api_without_redis';

export interface WebhookOutcome {
  create_rps: number;
  /** Every round's rate over create's, when there was more than one. */
  of_create_rounds?: number[];
  deliveries: { delivered: number; pending: number; failed: number };
}

export interface ScenarioResult extends Load {
  name: string;
  /** Every round's ratio to the ceiling, when there was more than one (BENCH_ROUNDS). */
  rounds?: number[];
  ceiling: string;
  ceiling_rps: number;
  /** Other ceilings: a floor measured in the rounds carries its ratio and every round's. */
  also: { ceiling: string; ceiling_rps: number; ratio?: number; rounds?: number[]; cpuUs?: Record<string, number> }[];
  /** create_webhook only: its rate over create's, and what became of its deliveries. */
  webhook?: WebhookOutcome;
}

/** A scenario's result: ours in the median round against `ceiling`, the other ceilings measured once (`also`) and the floors of the rounds. */
export function scenarioResult(
  name: string,
  { ours, theirs, ratios, floors }: Paired,
  ceiling: string,
  also: [string, Load][] = [],
  webhook?: WebhookOutcome,
): ScenarioResult {
  return {
    name,
    ...ours,
    ceiling,
    ceiling_rps: theirs.rps,
    also: [
      ...also.map(([c, l]) => ({ ceiling: c, ceiling_rps: l.rps })),
      ...floors
        .filter((f) => f.name !== WITHOUT_REDIS)
        .map((f) => ({
          ceiling: f.name,
          ceiling_rps: f.load.rps,
          ratio: f.ratio,
          ...(f.ratios.length > 1 ? { rounds: f.ratios } : {}),
          ...(f.load.cpuUs ? { cpuUs: f.load.cpuUs } : {}),
        })),
    ],
    ...(ratios.length > 1 ? { rounds: ratios } : {}),
    ...(webhook ? { webhook } : {}),
  };
}

export const r1 = (x: number) => Math.round(x * 10) / 10;
export const r3 = (x: number) => Math.round(x * 1000) / 1000;
const roundedCpu = (cpu: Record<string, number>) =>
  Object.fromEntries(Object.entries(cpu).map(([of, us]) => [of, Math.round(us)]));

export interface Measured {
  engine: 'sqlite' | 'postgres';
  poolSize: number;
  tracing?: { ratio: number | null; get_one_ratio: number; get_one_rounds: number[]; exports: number; spans: number };
  redis?: { get_one_ratio: number; create_ratio: number; get_one_rounds: number[]; create_rounds: number[] };
  customers: number;
  scenarios: ScenarioResult[];
  memory: { apiMiB: number; ceiling: string; ceilingMiB: number };
  startMs: number;
  /** `--workers N`: each scenario against N processes, and the one process's load it is set beside. */
  workers?: { count: number; scenarios: { name: string; load: Load; one: Load }[] };
}

export function benchDocument(m: Measured) {
  return {
    engine: m.engine,
    ...(m.engine === 'postgres' ? { pool_size: m.poolSize } : {}),
    ...(m.tracing ? { tracing: m.tracing } : {}),
    ...(m.redis ? { redis: m.redis } : {}),
    customers: m.customers,
    connections: SETTINGS.connections,
    scenarios: m.scenarios.map((s) => ({
      name: s.name,
      rps: Math.round(s.rps),
      p50_ms: r1(s.p50),
      p99_ms: r1(s.p99),
      errors: s.errors,
      ...(s.cpuUs ? { cpu_us_per_request: roundedCpu(s.cpuUs) } : {}),
      ceiling: s.ceiling,
      ceiling_rps: Math.round(s.ceiling_rps),
      ratio: r3(s.rps / s.ceiling_rps),
      ...(s.rounds ? { rounds: s.rounds.map(r3) } : {}),
      ...(s.also.length > 0
        ? {
            also: s.also.map((a) => ({
              ceiling: a.ceiling,
              ceiling_rps: Math.round(a.ceiling_rps),
              ratio: r3(a.ratio ?? s.rps / a.ceiling_rps),
              ...(a.rounds ? { rounds: a.rounds.map(r3) } : {}),
              ...(a.cpuUs ? { cpu_us_per_request: roundedCpu(a.cpuUs) } : {}),
            })),
          }
        : {}),
      ...(s.webhook
        ? {
            create_rps: Math.round(s.webhook.create_rps),
            of_create: r3(s.rps / s.webhook.create_rps),
            ...(s.webhook.of_create_rounds ? { of_create_rounds: s.webhook.of_create_rounds.map(r3) } : {}),
            deliveries: s.webhook.deliveries,
          }
        : {}),
    })),
    memory: {
      peak_rss_mib: r1(m.memory.apiMiB),
      ceiling: m.memory.ceiling,
      ceiling_rss_mib: r1(m.memory.ceilingMiB),
      ratio: r3(m.memory.apiMiB / m.memory.ceilingMiB),
    },
    start_ms: r1(m.startMs),
    ...(m.workers
      ? {
          workers: {
            count: m.workers.count,
            scenarios: m.workers.scenarios.map(({ name, load: l, one }) => ({
              name,
              rps: Math.round(l.rps),
              p50_ms: r1(l.p50),
              p99_ms: r1(l.p99),
              errors: l.errors,
              one_worker_rps: Math.round(one.rps),
              ratio: r3(l.rps / one.rps),
            })),
          },
        }
      : {}),
  };
}

export type BenchDocument = ReturnType<typeof benchDocument>;

/** The document as a table, for a reader at a terminal (without --json). */
export function printTable(
  doc: BenchDocument,
  about: { counts: SeedCounts; seedSeconds: number; totalSeconds: number },
): void {
  const { counts } = about;
  console.log(
    `\nvenue-api bench (${doc.engine}): ${counts.customers} customers, ${counts.bookings} bookings, ` +
      `${counts.orders} orders, seeded in ${about.seedSeconds.toFixed(1)} s; ${SETTINGS.connections} connections, ` +
      `${SETTINGS.warmup} s warm-up + ${SETTINGS.seconds} s per measurement; ${about.totalSeconds.toFixed(0)} s so far\n`,
  );
  const cols = [10, 10, 9, 9, 8, 24, 12, 7];
  const row = (cells: string[]) => cells.map((c, i) => c.padEnd(cols[i] ?? 0)).join('');
  console.log(row(['scenario', 'per s', 'p50 ms', 'p99 ms', 'errors', 'ceiling', 'ceiling/s', 'ratio']));
  for (const s of doc.scenarios) {
    console.log(
      row([
        s.name,
        String(s.rps),
        String(s.p50_ms),
        String(s.p99_ms),
        String(s.errors),
        s.ceiling,
        String(s.ceiling_rps),
        s.ratio.toFixed(3),
      ]),
    );
    for (const a of s.also ?? []) {
      console.log(row(['', '', '', '', '', a.ceiling, String(a.ceiling_rps), a.ratio.toFixed(3)]));
    }
  }
  console.log(
    `\nmemory: API peak RSS ${doc.memory.peak_rss_mib} MiB, ${doc.memory.ceiling} ${doc.memory.ceiling_rss_mib} MiB: ` +
      `${doc.memory.ratio.toFixed(2)}x`,
  );
  console.log(`start: ${doc.start_ms} ms to the first 200 from /ready (median of ${SETTINGS.coldStarts})`);
  const cpuLine = (who: string, cpu: Record<string, number> | undefined) => {
    const tiers = Object.entries(cpu ?? {}).map(([of, us]) => `${of} ${us}`);
    if (tiers.length > 0) console.log(`${who}: CPU µs a request, ${tiers.join(', ')}`);
  };
  for (const s of doc.scenarios) {
    cpuLine(s.name, s.cpu_us_per_request);
    for (const a of s.also ?? []) cpuLine(`  ${a.ceiling}`, a.cpu_us_per_request);
  }
  if (doc.tracing) {
    console.log(
      `tracing at ${doc.tracing.ratio}: get_one ${doc.tracing.get_one_ratio.toFixed(3)}x its rate without (rounds ${doc.tracing.get_one_rounds.join(', ')})`,
    );
  }
  if (doc.redis) {
    console.log(
      `redis: get_one ${doc.redis.get_one_ratio.toFixed(3)}x, create ${doc.redis.create_ratio.toFixed(3)}x their rates without it`,
    );
  }
  for (const w of doc.workers?.scenarios ?? []) {
    console.log(
      `${doc.workers!.count} workers, ${w.name}: ${w.rps}/s (p99 ${w.p99_ms} ms, errors ${w.errors}), ` +
        `${w.ratio.toFixed(2)}x one process's ${w.one_worker_rps}/s`,
    );
  }
  const hooked = doc.scenarios.find((s) => s.name === 'create_webhook');
  if (hooked?.deliveries) {
    console.log(
      `create_webhook: ${hooked.of_create?.toFixed(3)} of create's ${hooked.create_rps}/s; deliveries ` +
        `${hooked.deliveries.delivered} delivered, ${hooked.deliveries.pending} pending, ${hooked.deliveries.failed} failed`,
    );
  }
  console.log('(sync: per s is customers a second, p50/p99 per page of 100)\n');
}
