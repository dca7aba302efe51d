import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/**
 * /metrics under `--workers N` (docs/operations.md "Several processes"): the worker a scrape
 * reaches asks the supervisor, which gathers every worker's registry with prom-client's
 * AggregatorRegistry, so each scrape sees the whole server whichever worker answers it.
 */

const ASK = 'venue-api:metrics';
const ANSWER = 'venue-api:metrics-answer';

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** The worker's own label on what is its own (process gauges, its pool): `{worker: "2"}`, or none outside a cluster. */
export function workerLabel(): { worker: string } | null {
  return cluster.isWorker && cluster.worker ? { worker: String(cluster.worker.id) } : null;
}

/** In the supervisor: answers each worker's request with every worker's metrics, aggregated. */
export function answerClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: unknown }) => {
    const id = message?.id;
    if (message?.type !== ASK || typeof id !== 'number') return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id, text } satisfies Answer),
      (err: Error) => worker.send({ type: ANSWER, id, error: err.message } satisfies Answer),
    );
  });
}

/** How long a worker waits for the supervisor (prom-client's own wait for the workers is 5 s). */
const WAIT_MS = 6_000;

/**
 * In a worker: offers `registry` to the supervisor's requests and answers the whole server's
 * metrics text; outside a cluster, the registry's own.
 */
export function metricsText(registry: Registry): () => Promise<string> {
  if (!cluster.isWorker) return () => registry.metrics();
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one is what makes prom-client answer the supervisor's requests in this process.
  new AggregatorRegistry();
  const waiting = new Map<number, (answer: Answer) => void>();
  process.on('message', (message: Answer) => {
    if (message?.type === ANSWER) waiting.get(message.id)?.(message);
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
