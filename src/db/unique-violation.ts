/**
 * A write refused by a unique index, as each driver reports it: PostgreSQL SQLSTATE 23505,
 * better-sqlite3 SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY. Services turn it into a 409 (a
 * customer's email taken by a concurrent write), so the race the index settles is answered
 * like the check that ran first.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
