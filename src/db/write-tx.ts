import { ApiError } from '../errors.ts';
import type { Db, Queryable } from './schema.ts';

/**
 * One transaction per write (CONVENTIONS 5), with room for the caller: the idempotency
 * layer claims its key first and stores its answer last, inside the same transaction as
 * the change itself, so the two commit together or not at all.
 */
export interface WriteHooks<T> {
  /** First inside the transaction; throwing stops the write before it starts. */
  begin?(tx: Queryable): Promise<void>;
  /** Last before commit, with the service's answer. */
  complete?(tx: Queryable, value: T): Promise<void>;
}

/**
 * A guarded update found the row at another version than this transaction read (a
 * concurrent write committed in between on PostgreSQL): the whole write runs again on
 * fresh reads. SQLite never sees it, as its write transactions do not overlap.
 */
export class StaleWrite extends Error {}

/** A conflict that a plain retry may resolve: never stored as an idempotent answer. */
export class TransientConflict extends ApiError {
  constructor(detail: string) {
    super('conflict', detail);
  }
}

const ATTEMPTS = 5;

export async function runWrite<T>(db: Db, hooks: WriteHooks<T>, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(async (tx) => {
        await hooks.begin?.(tx);
        const value = await fn(tx);
        await hooks.complete?.(tx, value);
        return value;
      });
    } catch (err) {
      if (!(err instanceof StaleWrite)) throw err;
      if (attempt >= ATTEMPTS) {
        throw new TransientConflict('The customer kept changing while this request ran; retry it.');
      }
    }
  }
}
