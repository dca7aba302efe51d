import type { Dialect, Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/** What differs between the engines lives behind this interface, one file per engine. */
export interface Engine {
  readonly name: 'sqlite' | 'postgres';
  readonly dialect: Dialect;
  /**
   * Run `fn` only if no other process is running the job named `lock` right now;
   * answers false (without running) when another holds it. SQLite serves one process.
   */
  withJobLock<T>(db: Kysely<Database>, lock: string, fn: () => Promise<T>): Promise<{ ran: boolean; value?: T }>;
  /** Rows a multi-row INSERT may carry, given its column count (bound-parameter limits). */
  maxInsertRows(columns: number): number;
}
