import cluster, { type Worker } from 'node:cluster';
import { pino } from 'pino';
import type { Config } from './config.ts';
import { missingMigrationsMessage } from './db/migrate.ts';
import { answerClusterMetrics } from './ops/cluster-metrics.ts';

/** What a start found in the database's schema, for the log (docs/operations.md "Rolling out a new version"). */
export interface SchemaReport {
  applied: string[];
  missing: string[];
  unknown: string[];
}

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Says in the log what the schema means for this process: ahead of it is fine, behind is not ready. */
export function logSchema(log: Log, schema: SchemaReport): void {
  if (schema.applied.length > 0) log.info({ applied: schema.applied }, 'migrated the database');
  if (schema.unknown.length > 0) {
    log.warn(
      { unknown: schema.unknown },
      'the database holds migrations this version does not know (a newer version ran them); serving on it, since migrations only add before they take away',
    );
  }
  if (schema.missing.length > 0) {
    log.warn({ missing: schema.missing }, `not ready: ${missingMigrationsMessage(schema.missing)} (MIGRATE=off)`);
  }
}

/** A worker that lived at least this long died of something other than how it starts. */
const HEALTHY_AFTER_MS = 10_000;
/** The longest wait before replacing a worker that keeps dying young. */
const MAX_RESTART_DELAY_MS = 30_000;

export interface SuperviseOptions {
  schema: SchemaReport;
  /** The first worker listens: the port every worker shares (one chosen when PORT=0). */
  onListening: (port: number) => void;
}

/**
 * `serve --workers N`: this process serves nothing; it keeps N workers (this same entry run
 * again, see server.ts) listening on one port, node:cluster handing each connection to one.
 * A worker that dies is replaced: at once after a healthy run, else after a delay that
 * doubles with each death in a row (0.2 s up to 30 s), so a crash loop does not spin.
 * SIGTERM or SIGINT passes SIGTERM to every worker, which finishes its requests in flight and
 * exits; the supervisor exits once they all have.
 */
export async function superviseWorkers(config: Config, options: SuperviseOptions): Promise<void> {
  const log = pino({ level: config.logLevel, base: { pid: process.pid, role: 'supervisor' } });
  logSchema(log, options.schema);
  const started = new Map<number, number>();
  const restarts = new Set<NodeJS.Timeout>();
  let listened = false;
  let youngDeaths = 0;
  let stopping = false;
  let failed = false;

  const fork = (): Worker => {
    const worker = cluster.fork();
    started.set(worker.id, Date.now());
    return worker;
  };
  const alive = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    log.info({ signal, workers: alive().length }, 'closing: every worker finishes its requests in flight');
    for (const worker of alive()) worker.process.kill('SIGTERM');
    if (alive().length === 0) process.exit(failed ? 1 : 0);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  cluster.on('listening', (worker, address) => {
    log.info({ worker: worker.process.pid, port: address.port }, 'worker listening');
    if (listened) return;
    listened = true;
    options.onListening(address.port);
  });

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker.id) ?? Date.now());
    started.delete(worker.id);
    if (stopping) {
      if (code !== 0) failed = true;
      if (alive().length === 0) {
        log.info({ failed }, 'every worker has exited');
        process.exit(failed ? 1 : 0);
      }
      return;
    }
    if (!listened) {
      // None ever served: the cause is in how they start (the port taken, the database
      // refusing), which a replacement would only meet again.
      log.error({ worker: worker.process.pid, code, signal }, 'a worker exited before any listened; stopping');
      failed = true;
      stop('worker-failed');
      return;
    }
    youngDeaths = lived >= HEALTHY_AFTER_MS ? 0 : youngDeaths + 1;
    const delay = youngDeaths === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 100 * 2 ** youngDeaths);
    log.warn(
      { worker: worker.process.pid, code, signal, lived_ms: lived, restart_in_ms: delay },
      'worker exited; replacing it',
    );
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, delay);
    restarts.add(timer);
  });

  answerClusterMetrics();
  for (let i = 0; i < config.workers; i++) fork();
  log.info({ workers: config.workers }, 'supervising workers');
}
