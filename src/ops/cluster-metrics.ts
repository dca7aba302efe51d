import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * /metrics under `--workers N` (docs/operations.md "Several processes"): the worker a scrape
 * reaches asks the supervisor, which gathers the registry of every worker that listens and
 * sums them with prom-client's `AggregatorRegistry.aggregate`, so each scrape sees the whole
 * server whichever worker answers it.
 *
 * The supervisor asks only the workers that listen, not prom-client's `clusterMetrics()`,
 * which asks every connected worker: a replacement is connected long before it has a
 * registry, and a scrape waiting for it would time out while two workers could answer.
 */

const ASK = 'venue-api:metrics';
const ANSWER = 'venue-api:metrics-answer';
const GATHER = 'venue-api:metrics-gather';
const OWN = 'venue-api:metrics-own';

/** One worker's registry as prom-client hands it over: what `aggregate` sums. */
type Metrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** The supervisor's request for one worker's registry. */
interface Gather {
  type: typeof GATHER;
  id: number;
}

interface Own {
  type: typeof OWN;
  id: number;
  metrics?: Metrics;
  error?: string;
}

/** How long the supervisor waits for the workers' registries. */
const GATHER_MS = 5_000;
/** How long a worker waits for the supervisor: a little longer, so the supervisor's reason is the one told. */
const WAIT_MS = GATHER_MS + 1_000;

/** The worker's own label on what is its own (process gauges, its pool): `{worker: "2"}`, or none outside a cluster. */
export function workerLabel(): { worker: string } | null {
  return cluster.isWorker && cluster.worker ? { worker: String(cluster.worker.id) } : null;
}

/** In the supervisor: answers each worker's request with the metrics of every worker that listens, summed. */
export function answerClusterMetrics(): void {
  const listening = new Set<Worker>();
  /** Per gathering in progress, what to do with one worker's answer (or its death: no metrics). */
  const gatherings = new Map<number, (worker: Worker, own?: Own) => void>();
  let next = 0;

  /** Sends to a worker unless it has gone; a send that fails (it went meanwhile) calls `failed`, never throws. */
  const tell = (worker: Worker, message: Answer | Gather, failed = () => {}) => {
    if (!worker.isConnected()) return failed();
    worker.send(message, (err) => err && failed());
  };

  const gather = () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const waiting = new Set(listening);
      const collected: Metrics[] = [];
      const finish = (error?: string) => {
        if (!gatherings.delete(id)) return; // finished already
        clearTimeout(timer);
        if (error) reject(new Error(error));
        // aggregate throws on a metric it cannot sum: a 503 for the scrape, not a crash here.
        else
          Promise.resolve(collected)
            .then((all) => AggregatorRegistry.aggregate(all).metrics())
            .then(resolve, reject);
      };
      const timer = setTimeout(() => finish(`${waiting.size} worker(s) did not answer within 5 s`), GATHER_MS);
      const settle = (worker: Worker, own?: Own) => {
        if (!waiting.delete(worker)) return;
        if (own?.error !== undefined) return finish(own.error);
        if (own?.metrics) collected.push(own.metrics);
        if (waiting.size === 0) finish();
      };
      gatherings.set(id, settle);
      for (const worker of listening) tell(worker, { type: GATHER, id }, () => settle(worker));
      if (waiting.size === 0) finish();
    });

  cluster.on('listening', (worker) => listening.add(worker));
  cluster.on('exit', (worker) => {
    listening.delete(worker);
    // A worker that dies mid-gathering takes its counts with it, as a restart would.
    for (const settle of gatherings.values()) settle(worker);
  });
  cluster.on('message', (worker, message: { type?: string; id?: unknown }) => {
    const id = message?.id;
    if (typeof id !== 'number') return;
    if (message.type === OWN) gatherings.get(id)?.(worker, message as Own);
    if (message.type !== ASK) return;
    gather().then(
      (text) => tell(worker, { type: ANSWER, id, text }),
      (err: Error) => tell(worker, { type: ANSWER, id, error: err.message }),
    );
  });
}

/**
 * In a worker: gives `registry` to the supervisor's gatherings and answers the whole server's
 * metrics text; outside a cluster, the registry's own.
 */
export function metricsText(registry: Registry): () => Promise<string> {
  if (!cluster.isWorker) return () => registry.metrics();
  const waiting = new Map<number, (answer: Answer) => void>();
  process.on('message', (message: Answer | Gather) => {
    if (message?.type === ANSWER) waiting.get(message.id)?.(message);
    if (message?.type !== GATHER) return;
    const { id } = message;
    registry.getMetricsAsJSON().then(
      (metrics) => process.send?.({ type: OWN, id, metrics } satisfies Own),
      (err: Error) => process.send?.({ type: OWN, id, error: err.message } satisfies Own),
    );
  });
  let next = 0;
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => settle({ type: ANSWER, id, error: 'the supervisor did not answer' }), WAIT_MS);
      function settle(answer: Answer) {
        clearTimeout(timer);
        waiting.delete(id);
        if (answer.text !== undefined) resolve(answer.text);
        else reject(new Error(`the metrics of every worker could not be gathered: ${answer.error}`));
      }
      waiting.set(id, settle);
      process.send?.({ type: ASK, id });
    });
}
