import autocannon from 'autocannon';
import { cpuSince, TICK_US } from './cpu.ts';
import { SETTINGS } from './settings.ts';

/** How a load is measured and set beside another: autocannon runs, rounds in turns, a walk of the list. */

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time (user + system) per answered request in µs, of each process or kind of process asked for. */
  cpuUs?: Record<string, number>;
}

/** Whose CPU a measurement counts, by name: a process (its pid), or every process of a name (`postgres`). */
export type CpuOf = Record<string, number | string>;

/**
 * A warm-up, then the measured seconds; `errors` is every answer not 2xx. With `cpu`, also the
 * CPU time per request of each process it names over the measured part: steadier than
 * requests a second on a shared machine.
 */
export async function load(options: autocannon.Options, cpu: CpuOf = {}): Promise<Load> {
  const base = { connections: SETTINGS.connections, ...options };
  if (SETTINGS.warmup > 0) await autocannon({ ...base, duration: SETTINGS.warmup });
  const counting = Object.entries(cpu).map(([name, of]) => [name, cpuSince(of)] as const);
  const r = await autocannon({ ...base, duration: SETTINGS.seconds });
  const perRequest = counting.map(([name, spent]) => [name, (spent() * TICK_US) / r.requests.total]);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.non2xx + r.errors,
    ...(counting.length > 0 && r.requests.total > 0 ? { cpuUs: Object.fromEntries(perRequest) } : {}),
  };
}

/** A floor measured in `paired`'s rounds: its load in the round of its median ratio, that ratio, every round's. */
export interface Floor {
  name: string;
  load: Load;
  ratio: number;
  ratios: number[];
}

/** What `paired` measured: the round of the median ratio, and every round's ratio; each floor's likewise. */
export interface Paired {
  ours: Load;
  theirs: Load;
  ratios: number[];
  floors: Floor[];
}

/** The index of the round whose ratio is the median (the lower middle one for an even count). */
function medianRound(ratios: number[]): number {
  const order = ratios.map((ratio, i) => ({ ratio, i })).sort((a, b) => a.ratio - b.ratio);
  return order[Math.floor((order.length - 1) / 2)]!.i;
}

/**
 * Ours and theirs BENCH_ROUNDS times in turns, ours first in odd rounds and theirs first in
 * even ones; answers the round whose ratio is the median, so its rates and its ratio belong
 * together. Floors (a scenario's fair floor, under `also`) take their turns in the same rounds
 * after theirs, so their ratios are as steady as the ceiling's: one measurement a few minutes
 * from ours moves with the machine.
 */
export async function paired(
  ours: () => Promise<Load>,
  theirs: () => Promise<Load>,
  floors: [string, () => Promise<Load>][] = [],
): Promise<Paired> {
  const rounds: { ours: Load; theirs: Load; floors: Load[] }[] = [];
  const measureFloors = async () => {
    const loads: Load[] = [];
    for (const [, measure] of floors) loads.push(await measure());
    return loads;
  };
  for (let i = 0; i < SETTINGS.rounds; i++) {
    if (i % 2 === 0) {
      const o = await ours();
      const t = await theirs();
      rounds.push({ ours: o, theirs: t, floors: await measureFloors() });
    } else {
      const t = await theirs();
      const f = await measureFloors();
      rounds.push({ ours: await ours(), theirs: t, floors: f });
    }
  }
  const ratios = rounds.map((r) => r.ours.rps / r.theirs.rps);
  const median = rounds[medianRound(ratios)]!;
  return {
    ours: median.ours,
    theirs: median.theirs,
    ratios,
    floors: floors.map(([name], j) => {
      const of = rounds.map((r) => r.ours.rps / r.floors[j]!.rps);
      const at = medianRound(of);
      return { name, load: rounds[at]!.floors[j]!, ratio: of[at]!, ratios: of };
    }),
  };
}

export const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

export const median = (xs: number[]) => quantile(xs, 0.5);

/** One client following next_cursor to the end: records a second, page latencies, non-2xx pages. */
export async function walk(
  url: (cursor: string | undefined) => string,
  headers: Record<string, string>,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<Load & { records: number }> {
  const started = performance.now();
  const times: number[] = [];
  let records = 0;
  let errors = 0;
  let cursor: string | undefined;
  for (let pages = 0; pages < maxPages; pages++) {
    const t = performance.now();
    const res = await fetch(url(cursor), { headers });
    const text = await res.text();
    times.push(performance.now() - t);
    if (!res.ok) {
      errors++;
      break;
    }
    const page = JSON.parse(text) as { data: unknown[]; has_more: boolean; next_cursor?: string };
    records += page.data.length;
    if (!page.has_more || !page.next_cursor) break;
    cursor = page.next_cursor;
  }
  const seconds = (performance.now() - started) / 1000;
  return { records, rps: records / seconds, p50: quantile(times, 0.5), p99: quantile(times, 0.99), errors };
}
