import { DAY_MS } from '../lib/time.ts';

/**
 * Time for seeded data. Records of one table get strictly increasing created_at values
 * (distinct, so newest-first paging has no ties to break), and venue-local dates and
 * times are read in the venue's IANA timezone (SPEC "Conventions": local date / time).
 */
export const SEED_SPAN_MS = 730 * DAY_MS;
export const HOUR_MS = 3_600_000;

/** Strictly increasing instants for one table across a whole seed run. */
export class Sequence {
  private last = Number.NEGATIVE_INFINITY;
  /** Call with candidates in ascending order; equal or earlier ones are nudged forward. */
  next(candidate: number): number {
    const value = Math.max(Math.round(candidate), this.last + 1);
    this.last = value;
    return value;
  }
}

const partsFormat = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormat.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    partsFormat.set(timeZone, f);
  }
  return f;
}

/** Wall clock of `utcMs` in the zone, as if it were UTC (minute precision). */
function wallClock(timeZone: string, utcMs: number): number {
  const p: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(utcMs)) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!);
}

/**
 * The zone's offset from UTC at an instant. Offsets change on the hour (DST), so one
 * look-up per zone and hour is cached: the seeder asks this hundreds of thousands of times.
 */
function zoneOffset(timeZone: string, utcMs: number): number {
  const hour = Math.floor(utcMs / 3_600_000);
  const key = `${timeZone}|${hour}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const at = hour * 3_600_000;
    offset = wallClock(timeZone, at) - at;
    offsets.set(key, offset);
  }
  return offset;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `yyyy-MM-dd` and `HH:mm` of an instant at the venue. */
export function localParts(timeZone: string, utcMs: number): { localDate: string; localTime: string } {
  const d = new Date(utcMs + zoneOffset(timeZone, utcMs));
  return {
    localDate: `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    localTime: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`,
  };
}

/** The instant at which the venue's clock shows `minuteOfDay` on the venue day containing `utcMs`. */
export function atLocalTime(timeZone: string, utcMs: number, minuteOfDay: number): number {
  const wall = utcMs + zoneOffset(timeZone, utcMs);
  const wallTarget = wall - (wall % DAY_MS) + minuteOfDay * 60_000;
  // Two passes settle the offset on either side of a DST change.
  let instant = wallTarget - zoneOffset(timeZone, wallTarget);
  instant = wallTarget - zoneOffset(timeZone, instant);
  return instant;
}

/** True when the venue sells at peak prices then (Friday evening and the weekend). */
export function isPeak(timeZone: string, utcMs: number): boolean {
  const wall = new Date(utcMs + zoneOffset(timeZone, utcMs));
  const day = wall.getUTCDay();
  return day === 0 || day === 6 || (day === 5 && wall.getUTCHours() >= 17);
}

/** n instants spread over [from, to), ascending. */
export function spread(n: number, from: number, to: number): number[] {
  const out = Array.from({ length: n }, () => from + Math.random() * (to - from));
  return out.sort((a, b) => a - b);
}
