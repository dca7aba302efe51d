/**
 * Instants are stored as whole milliseconds since the epoch (one type on both engines,
 * exact comparisons, index-friendly) and sent as ISO 8601 with milliseconds and Z.
 */
export type Clock = () => number;
export const systemClock: Clock = () => Date.now();

export function toInstant(ms: number): string;
export function toInstant(ms: number | null | undefined): string | null;
export function toInstant(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/** SPEC: `updated_since` is ISO 8601 *with an offset* (Z or ±hh:mm). */
const WITH_OFFSET = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-](0\d|1[0-4]):?[0-5]\d)$/;

export function parseInstantWithOffset(raw: string): number | null {
  const m = WITH_OFFSET.exec(raw);
  // Date.parse would roll 2026-02-30 over into March; an impossible day is refused instead.
  if (!m || !isCalendarDate(m[1]!)) return null;
  const ms = Date.parse(raw.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? ms : null;
}

const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date `yyyy-MM-dd` (no 2023-02-30). */
export function isCalendarDate(raw: string): boolean {
  const m = LOCAL_DATE.exec(raw);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

export const DAY_MS = 86_400_000;
export const MINUTE_MS = 60_000;
