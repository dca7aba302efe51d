import type { Db } from '../../db/schema.ts';
import { judgedHour } from '../../jobs/activity-rules.ts';
import { HOUR_MS, hourStart } from '../../jobs/activity.repo.ts';
import { DAY_MS } from '../../lib/time.ts';
import { checksOfKey, hourlyRequests } from './key-usage.repo.ts';
import type { ApiKey } from './key.model.ts';

/** Hours the key's page shows: the last 7 days, the current (still counting) hour last; days: 7 UTC days, today last. */
export const USAGE_HOURS = 7 * 24;

export interface UsageHour {
  hourStart: number;
  requests: number;
  /** What the hourly check saw of this hour, when it judged it (live keys only). */
  check: {
    requests: number;
    requestThreshold: number | null;
    customersSent: number;
    customerThreshold: number | null;
    verdict: 'requests' | 'customers' | null;
  } | null;
}

export interface UsageDay {
  dayStart: number;
  /** The most distinct customers in 24 hours any of the day's checks counted (null: no check that day). */
  customersSent: number | null;
  customerThreshold: number | null;
}

export interface KeyUsage {
  /** Only live keys are counted hourly and judged (DECISIONS "Unusual activity"). */
  watched: boolean;
  hours: UsageHour[];
  days: UsageDay[];
  /** For a key the check paused: the hour it judged and what it saw. */
  pausedBy: UsageHour | null;
}

/**
 * A key's use over the last 7 days as the unusual-activity check sees it: requests an hour
 * (the tracker's counts), and per judged hour the figures and thresholds the check applied.
 * Two index range reads of at most 168 rows each, whatever the key's history.
 */
export async function keyUsage(
  db: Db,
  key: Pick<ApiKey, 'id' | 'mode' | 'status' | 'pausedAt'>,
  now: number,
): Promise<KeyUsage> {
  const last = hourStart(now);
  const from = last - (USAGE_HOURS - 1) * HOUR_MS;
  const [counted, checks] = await Promise.all([hourlyRequests(db, key.id, from), checksOfKey(db, key.id, from)]);
  const requests = new Map(counted.map((r) => [Number(r.hour_start), Number(r.requests)]));
  const judged = new Map(
    checks.map((c) => [
      Number(c.hour_start),
      {
        requests: Number(c.requests),
        requestThreshold: c.request_threshold === null ? null : Number(c.request_threshold),
        customersSent: Number(c.customers_sent),
        customerThreshold: c.customer_threshold === null ? null : Number(c.customer_threshold),
        verdict: c.verdict,
      },
    ]),
  );
  const hours: UsageHour[] = [];
  for (let h = from; h <= last; h += HOUR_MS) {
    hours.push({ hourStart: h, requests: requests.get(h) ?? 0, check: judged.get(h) ?? null });
  }

  const days: UsageDay[] = [];
  const today = Math.floor(last / DAY_MS) * DAY_MS;
  for (let d = today - 6 * DAY_MS; d <= today; d += DAY_MS) {
    const ofDay = hours.filter((h) => h.check && h.hourStart >= d && h.hourStart < d + DAY_MS);
    const most = ofDay.reduce<UsageHour | null>(
      (best, h) => (best && best.check!.customersSent >= h.check!.customersSent ? best : h),
      null,
    );
    days.push({
      dayStart: d,
      customersSent: most ? most.check!.customersSent : null,
      customerThreshold: most ? most.check!.customerThreshold : null,
    });
  }

  let pausedBy: UsageHour | null = null;
  if (key.status === 'paused' && key.pausedAt !== null) {
    const hour = judgedHour(key.pausedAt).from;
    const check = judged.get(hour);
    if (check?.verdict) pausedBy = { hourStart: hour, requests: check.requests, check };
  }
  return { watched: key.mode === 'live', hours, days, pausedBy };
}
