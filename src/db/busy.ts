/**
 * Whether a database error says "another process holds the lock; try again soon": SQLite's
 * SQLITE_BUSY (and its extended codes) once the connection's busy_timeout has passed. Such a
 * write rolled back (or never began), so the edge answers 503 with Retry-After rather than 500.
 */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}
