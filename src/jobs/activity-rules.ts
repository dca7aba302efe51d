import { DAY_MS } from '../lib/time.ts';
import { HOUR_MS } from './activity.repo.ts';

/**
 * The rules of DECISIONS "Unusual activity", as pure functions of what was counted.
 * A key's first 24 hours are its first sync and are never held against it; nor is anything
 * before a person resumed it (otherwise the next check would pause it again at once).
 */
export const CUSTOMER_RULE_MIN_WORKSPACE = 100;
export const BURST_FACTOR = 5;
export const BURST_FLOOR = 1_000;
export const HISTORY_MS = 7 * DAY_MS;

export type Rule = 'customers' | 'requests';

export interface KeyActivity {
  createdAt: number;
  resumedAt: number | null;
  /** Distinct customers sent in the trailing 24 hours (first sync and pre-resume left out). */
  customersSent: number;
  workspaceLiveCustomers: number;
  /** Requests in the hour being judged, and in the 7 days before it. */
  lastHourRequests: number;
  historyRequests: number;
}

export interface Verdict {
  rule: Rule;
  reason: string;
}

/** The hour judged: the last complete clock hour before `now`. */
export function judgedHour(now: number): { from: number; to: number } {
  const to = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { from: to - HOUR_MS, to };
}

/**
 * Hours the average is taken over: the 7 days before the judged hour, or fewer when the key
 * is younger (an average over hours it did not exist would make every young key look busy).
 */
export function historyHours(createdAt: number, judgedFrom: number): number {
  const from = Math.max(judgedFrom - HISTORY_MS, Math.floor(createdAt / HOUR_MS) * HOUR_MS);
  return Math.max(0, Math.round((judgedFrom - from) / HOUR_MS));
}

/**
 * The most distinct customers 24 hours may send without a pause (more than half the
 * workspace's live customers pauses), or null when the workspace is too small for the rule.
 */
export function customerThreshold(workspaceLiveCustomers: number): number | null {
  return workspaceLiveCustomers < CUSTOMER_RULE_MIN_WORKSPACE ? null : Math.floor(workspaceLiveCustomers / 2);
}

function customerVerdict(a: KeyActivity): Verdict | null {
  const threshold = customerThreshold(a.workspaceLiveCustomers);
  if (threshold === null || a.customersSent <= threshold) return null;
  return {
    rule: 'customers',
    reason:
      `In the last 24 hours this key was sent ${a.customersSent} distinct customers, more than half ` +
      `of the workspace's ${a.workspaceLiveCustomers} live customers.`,
  };
}

/** The judged hour's average over the hours before it, and how many hours that is. */
function hourlyAverage(a: KeyActivity, judgedFrom: number): { average: number; hours: number } {
  const hours = historyHours(a.createdAt, judgedFrom);
  return { average: hours === 0 ? 0 : a.historyRequests / hours, hours };
}

/**
 * The most requests the judged hour may hold without a pause: more than both the floor and
 * 5 times the hourly average pauses. Null when the hour is exempt (the key's first sync, or
 * before a person resumed it).
 */
export function requestThreshold(a: KeyActivity, now: number): number | null {
  const hour = judgedHour(now);
  if (hour.from < a.createdAt + DAY_MS) return null;
  if (a.resumedAt !== null && a.resumedAt > hour.from) return null;
  return Math.floor(Math.max(BURST_FLOOR, BURST_FACTOR * hourlyAverage(a, hour.from).average));
}

function requestVerdict(a: KeyActivity, now: number): Verdict | null {
  const threshold = requestThreshold(a, now);
  if (threshold === null || a.lastHourRequests <= threshold) return null;
  const hour = judgedHour(now);
  const { average, hours } = hourlyAverage(a, hour.from);
  return {
    rule: 'requests',
    reason:
      `This key made ${a.lastHourRequests} requests between ${new Date(hour.from).toISOString()} and ` +
      `${new Date(hour.to).toISOString()}, more than ${BURST_FACTOR} times its hourly average of ` +
      `${average.toFixed(1)} over the ${hours} hours before, and more than ${BURST_FLOOR}.`,
  };
}

/** The first rule the key breaks, or null when its activity is usual. */
export function judge(a: KeyActivity, now: number): Verdict | null {
  return customerVerdict(a) ?? requestVerdict(a, now);
}
