import type { Engine } from './dialects/types.ts';
import type { Db, Tx } from './schema.ts';
import { unavailableReason, type UnavailableReason } from './unavailable.ts';

/**
 * The write path (CONVENTIONS 5, DECISIONS "Durability"): every write runs in one transaction
 * here and returns only once it is durable (on SQLite, once its group's COMMIT succeeded).
 */
export interface Writer {
  /** Reads, outside any transaction. */
  readonly db: Db;
  /** Runs `fn` in one transaction; resolves once it is durable, rejects when it is not. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
}

/** A writer that also says which engine it writes to: for writers whose statements differ by engine (Engine). */
export interface EngineWriter extends Writer {
  readonly engine: Engine;
  /**
   * Runs `fn`, one statement that is atomic on its own (PostgreSQL's data-modifying WITH), on
   * PostgreSQL without BEGIN and COMMIT, durable when it returns; on SQLite as `write` does.
   */
  writeStatement<T>(fn: (db: Db | Tx) => Promise<T>): Promise<T>;
}

/** Whether writes are failing for want of disk or database (for /health), and since when. */
export interface WriteHealth {
  failing: boolean;
  /** When the current run of failures began (epoch ms); null while writes succeed. */
  since: number | null;
  /** What the last failure was: `full` (no space) or `down` (an I/O error, an unreachable database). */
  reason: UnavailableReason | null;
  /** When a write last became durable (epoch ms), null before the first. */
  lastSuccessAt: number | null;
}

export interface WritePath extends Writer, Pick<EngineWriter, 'writeStatement'> {
  writeHealth(): WriteHealth;
}

/** Failures that say the database cannot take writes now, rather than that one write was refused. */
const FAILING: ReadonlySet<UnavailableReason> = new Set(['full', 'down']);

export function writePath(db: Db, engine: Engine, clock: () => number = Date.now): WritePath {
  let since: number | null = null;
  let reason: UnavailableReason | null = null;
  let lastSuccessAt: number | null = null;

  async function write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return tracked(async () => {
      let durable: Promise<void> = Promise.resolve();
      const value = await db.transaction().execute((tx) => {
        // This transaction's own group, taken while it runs: never "whatever group is open later".
        durable = engine.durable();
        return fn(tx);
      });
      await durable;
      return value;
    });
  }

  /** Runs a write, keeping the health /health reports. */
  async function tracked<T>(run: () => Promise<T>): Promise<T> {
    try {
      const value = await run();
      lastSuccessAt = clock();
      since = null;
      reason = null;
      return value;
    } catch (err) {
      const why = unavailableReason(err);
      if (why && FAILING.has(why)) {
        since ??= clock();
        reason = why;
      }
      throw err;
    }
  }

  // PostgreSQL commits a statement run outside a transaction before answering it; SQLite's
  // writes are durable only through their group's COMMIT (sqlite-group-commit.ts).
  const writeStatement = <T>(fn: (db: Db | Tx) => Promise<T>): Promise<T> =>
    engine.name === 'postgres' ? tracked(() => fn(db)) : write(fn);

  return {
    db,
    write,
    writeStatement,
    writeHealth: () => ({ failing: since !== null, since, reason, lastSuccessAt }),
  };
}
