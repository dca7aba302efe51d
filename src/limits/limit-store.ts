import { EventEmitter } from 'node:events';
import type { LimitCheck, LimitName } from './limits.ts';

/**
 * What the limit machinery tells the outside (the metrics): a request refused by a limit,
 * the shared store lost (answers then come from per-process counts) and regained.
 */
export interface LimitEventMap {
  rate_limited: [limit: LimitName];
  store_fallback: [reason: string];
  store_recovered: [];
}

export class LimitEvents extends EventEmitter<LimitEventMap> {}

/** One check after the store ran: its count (after this request when it was counted). */
export interface CheckState {
  check: LimitCheck;
  count: number;
  /** When the check's window ends (ms). */
  resetAt: number;
}

export interface Consumption {
  /** false: some limit was already reached, and nothing was counted anywhere. */
  allowed: boolean;
  states: CheckState[];
}

/**
 * Counts for every limit, in one place per deployment (DECISIONS "Limits": with several
 * processes, every limit holds across all of them).
 */
export interface LimitStore {
  /** `memory`: this process only; `redis`: shared by every process using the same Redis. */
  readonly backend: 'memory' | 'redis';
  readonly events: LimitEvents;
  /** true while a shared store is unreachable and this process counts on its own. */
  readonly degraded: boolean;
  /**
   * Checks every limit and, only when none is reached, counts all of them — in one atomic
   * step, so a refused request consumes nothing from any limit (DECISIONS "Limits").
   * Never throws for a lost backend: it falls back instead.
   */
  consume(checks: readonly LimitCheck[], now: number): Promise<Consumption>;
  /** Whether the backing store answers (for /ready): always true in memory. */
  ping(): Promise<boolean>;
  /** Flushes what must survive a restart and lets go of connections and timers. */
  close(): Promise<void>;
}

/** Whether a check's limit was reached (refused calls count nothing, so then it is the count before the request). */
export const reached = (state: CheckState): boolean => state.count >= state.check.max;

/** The limit a refusal is reported under: of those reached, the one that frees up last. */
export function refusingState(result: Consumption): CheckState | null {
  if (result.allowed) return null;
  let worst: CheckState | null = null;
  for (const s of result.states) {
    if (reached(s) && (!worst || s.resetAt > worst.resetAt)) worst = s;
  }
  return worst;
}

/** Whole seconds from `now` until `resetAt`, at least 1 (Retry-After, RateLimit t=). */
export function secondsUntil(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}
