import { DAY_MS, MINUTE_MS } from '../lib/time.ts';
import { addressBucket } from './address.ts';

/**
 * Every limit a request can be refused by (SPEC "Limits"). The key's own limits carry the
 * names of its `limits` object; the workspace's and the per-address one are named alike.
 * The name is the 429's `limit` member (DECISIONS "HTTP and errors").
 */
export type LimitName =
  | 'requests_per_minute'
  | 'requests_per_day'
  | 'writes_per_minute'
  | 'writes_per_day'
  | 'removals_per_day'
  | 'workspace_requests_per_minute'
  | 'refused_keys_per_minute';

export type LimitWindow = 'minute' | 'day';

interface Definition {
  window: LimitWindow;
  what: string;
  per: 'key' | 'workspace' | 'address';
}

export const LIMITS: Readonly<Record<LimitName, Definition>> = Object.freeze({
  requests_per_minute: { window: 'minute', what: 'requests', per: 'key' },
  requests_per_day: { window: 'day', what: 'requests', per: 'key' },
  writes_per_minute: { window: 'minute', what: 'writes', per: 'key' },
  writes_per_day: { window: 'day', what: 'writes', per: 'key' },
  removals_per_day: { window: 'day', what: 'removals', per: 'key' },
  workspace_requests_per_minute: { window: 'minute', what: 'requests', per: 'workspace' },
  refused_keys_per_minute: { window: 'minute', what: 'refused keys', per: 'address' },
});

/** SPEC "Limits": 30 refused keys a minute per address. */
export const REFUSED_KEYS_PER_MINUTE = 30;

/**
 * One limit as it applies to one request. `cost` 1 counts the request; 0 only asks whether
 * the limit is already reached (the per-address block). Either way the limit refuses when
 * its count has reached `max`.
 */
export interface LimitCheck {
  name: LimitName;
  /** Whose count: a key id, a workspace id or an address bucket. */
  subject: string;
  max: number;
  cost: 0 | 1;
}

/**
 * DECISIONS "Limits": fixed 60-second windows, and days that start at 00:00 UTC. Both are
 * whole multiples of the epoch (which began at midnight UTC), so one formula serves.
 */
export function windowOf(window: LimitWindow, now: number): { start: number; resetAt: number } {
  const size = window === 'minute' ? MINUTE_MS : DAY_MS;
  const start = now - (((now % size) + size) % size);
  return { start, resetAt: start + size };
}

/** The counter a check adds to in the window holding `now`; every store names it alike. */
export function counterId(check: LimitCheck, now: number): { id: string; start: number; resetAt: number } {
  const { start, resetAt } = windowOf(LIMITS[check.name].window, now);
  return { id: `${check.name}:${check.subject}:${start}`, start, resetAt };
}

/** "60 writes a minute per key" (DECISIONS "Limits": the 429 detail names the limit). */
export function describeLimit(name: LimitName, max: number): string {
  const d = LIMITS[name];
  return `${max.toLocaleString('en-US')} ${d.what} a ${d.window} per ${d.per}`;
}

/** What a key may spend: its own limits and its workspace's per-minute requests. */
export interface KeyAllowance {
  id: string;
  workspaceId: string;
  limits: Readonly<
    Record<
      'requests_per_minute' | 'requests_per_day' | 'writes_per_minute' | 'writes_per_day' | 'removals_per_day',
      number
    >
  >;
  workspaceRequestsPerMinute: number;
}

/**
 * What an authenticated request counts towards (DECISIONS "Limits"): every request, the
 * key's and its workspace's requests; POST and PATCH are writes; every DELETE is a removal
 * and not a write. The key's per-minute requests come first: the RateLimit headers read it.
 */
export function requestChecks(key: KeyAllowance, method: string): LimitCheck[] {
  const checks: LimitCheck[] = [
    { name: 'requests_per_minute', subject: key.id, max: key.limits.requests_per_minute, cost: 1 },
    { name: 'requests_per_day', subject: key.id, max: key.limits.requests_per_day, cost: 1 },
    { name: 'workspace_requests_per_minute', subject: key.workspaceId, max: key.workspaceRequestsPerMinute, cost: 1 },
  ];
  if (method === 'POST' || method === 'PATCH') {
    checks.push(
      { name: 'writes_per_minute', subject: key.id, max: key.limits.writes_per_minute, cost: 1 },
      { name: 'writes_per_day', subject: key.id, max: key.limits.writes_per_day, cost: 1 },
    );
  } else if (method === 'DELETE') {
    checks.push({ name: 'removals_per_day', subject: key.id, max: key.limits.removals_per_day, cost: 1 });
  }
  return checks;
}

/** The per-address count of refused keys: cost 1 counts a 401, cost 0 asks if blocked. */
export function refusedKeysCheck(ip: string, cost: 0 | 1): LimitCheck {
  return { name: 'refused_keys_per_minute', subject: addressBucket(ip), max: REFUSED_KEYS_PER_MINUTE, cost };
}
