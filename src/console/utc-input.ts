/**
 * The console's instants in forms: a datetime-local input gives `YYYY-MM-DDTHH:MM[:SS]` with
 * no zone, and every form that takes one says it is UTC (the pages show instants in UTC too).
 */
export function parseUtcInput(raw: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(raw.trim());
  if (!m) return null;
  const [, year, month, day, hour, minute, second = '00'] = m as unknown as string[];
  const ms = Date.UTC(+year!, +month! - 1, +day!, +hour!, +minute!, +second);
  // Date.UTC rolls 2027-02-31 over into March and 24:00 into the next day: a time that does not exist is refused.
  const exists = new Date(ms).toISOString().startsWith(`${year}-${month}-${day}T${hour}:${minute}:${second}`);
  return exists ? ms : null;
}

/** An instant as a datetime-local input's value, in UTC, to the minute. */
export const toUtcInput = (ms: number): string => new Date(ms).toISOString().slice(0, 16);
