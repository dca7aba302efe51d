/**
 * Whether a database error means "the database cannot serve this right now", which the edge
 * answers 503 service_unavailable with Retry-After (DECISIONS "HTTP and errors"), never 500:
 * the request earned no error of its own and the same request can be retried (a POST with
 * the same Idempotency-Key). Each dialect turns its driver's failures without a code into
 * DatabaseUnavailable (dialects/*.ts); the codes both drivers do set are read here.
 */
export type UnavailableReason = 'busy' | 'full' | 'down' | 'timeout';

export class DatabaseUnavailable extends Error {
  constructor(
    readonly reason: UnavailableReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DatabaseUnavailable';
  }
}

/** Node's socket errors: the database's host or port does not answer. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** PostgreSQL SQLSTATEs (Appendix A) of a server that cannot serve now, by reason. */
function postgresReason(state: string): UnavailableReason | null {
  // 08: connection exception; 57P01-03: shutting down, crashed, starting up; 53300: too many connections.
  if (state.startsWith('08') || state.startsWith('57P') || state === '53300') return 'down';
  // 53100: disk full; 53200: out of memory.
  if (state === '53100' || state === '53200') return 'full';
  // 57014: canceled by statement_timeout; 55P03: lock_timeout; 40P01/40001: deadlock, serialization.
  if (state === '57014' || state === '55P03') return 'timeout';
  if (state === '40P01' || state === '40001') return 'busy';
  return null;
}

/** SQLite's result codes (better-sqlite3 names them SQLITE_*), by reason. */
function sqliteReason(code: string): UnavailableReason | null {
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_')) return 'busy';
  if (code === 'SQLITE_FULL') return 'full';
  if (code.startsWith('SQLITE_IOERR')) return 'down';
  return null;
}

export function unavailableReason(err: unknown): UnavailableReason | null {
  if (err instanceof DatabaseUnavailable) return err.reason;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  if (code.startsWith('SQLITE_')) return sqliteReason(code);
  if (NETWORK_CODES.has(code)) return 'down';
  if (/^[0-9A-Z]{5}$/.test(code)) return postgresReason(code);
  return null;
}

/** Seconds a client should wait before retrying, by reason: a lock frees quickly, an outage less so. */
export const RETRY_AFTER_SECONDS: Record<UnavailableReason, number> = { busy: 1, timeout: 2, down: 5, full: 30 };

/** What the 503's detail says, by reason; it names no internals (DECISIONS "HTTP and errors"). */
export const UNAVAILABLE_DETAIL: Record<UnavailableReason, string> = {
  busy: 'The database is busy with another process; nothing was written. Retry after a moment.',
  timeout: 'The database did not answer in time; nothing was written. Retry after a moment.',
  down: 'The database cannot be reached just now; the request may not have completed. Retry it (a POST with the same Idempotency-Key).',
  full: 'The database cannot store more data just now (its disk is full); nothing was written. Reads still work.',
};
