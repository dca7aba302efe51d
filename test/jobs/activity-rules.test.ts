import { describe, expect, it } from 'vitest';
import { historyHours, judge, judgedHour, type KeyActivity } from '../../src/jobs/activity-rules.ts';
import { HOUR_MS } from '../../src/jobs/activity.repo.ts';
import { DAY_MS } from '../../src/lib/time.ts';

const NOW = Date.UTC(2026, 9, 10, 10, 30);
const OLD = NOW - 30 * DAY_MS;

function activity(patch: Partial<KeyActivity>): KeyActivity {
  return {
    createdAt: OLD,
    resumedAt: null,
    customersSent: 0,
    workspaceLiveCustomers: 0,
    lastHourRequests: 0,
    historyRequests: 0,
    ...patch,
  };
}

describe('unusual-activity rules (DECISIONS "Unusual activity")', () => {
  it('judges the last complete clock hour', () => {
    expect(judgedHour(NOW)).toEqual({ from: Date.UTC(2026, 9, 10, 9), to: Date.UTC(2026, 9, 10, 10) });
  });

  it('pauses only when the customers sent exceed half of a workspace of 100 or more', () => {
    expect(judge(activity({ workspaceLiveCustomers: 100, customersSent: 50 }), NOW)).toBeNull();
    expect(judge(activity({ workspaceLiveCustomers: 100, customersSent: 51 }), NOW)?.rule).toBe('customers');
    expect(judge(activity({ workspaceLiveCustomers: 99, customersSent: 99 }), NOW)).toBeNull();
    expect(judge(activity({ workspaceLiveCustomers: 1000, customersSent: 501 }), NOW)?.rule).toBe('customers');
  });

  it('pauses a burst over 5 times the hourly average and over 1,000, not at either bound', () => {
    const week = { historyRequests: 168 * 100 }; // 100 an hour
    expect(judge(activity({ ...week, lastHourRequests: 1001 }), NOW)?.rule).toBe('requests');
    expect(judge(activity({ ...week, lastHourRequests: 1000 }), NOW)).toBeNull();
    const busy = { historyRequests: 168 * 300 }; // 5x = 1,500
    expect(judge(activity({ ...busy, lastHourRequests: 1500 }), NOW)).toBeNull();
    expect(judge(activity({ ...busy, lastHourRequests: 1501 }), NOW)?.rule).toBe('requests');
  });

  it('averages over the hours the key existed, at most 7 days', () => {
    const judged = judgedHour(NOW).from;
    expect(historyHours(OLD, judged)).toBe(168);
    expect(historyHours(judged - 48 * HOUR_MS + 1, judged)).toBe(48);
    // 48 hours at 250 an hour: 5x = 1,250.
    const young = activity({ createdAt: judged - 48 * HOUR_MS, historyRequests: 48 * 250 });
    expect(judge({ ...young, lastHourRequests: 1250 }, NOW)).toBeNull();
    expect(judge({ ...young, lastHourRequests: 1251 }, NOW)?.rule).toBe('requests');
  });

  it("never judges an hour of the key's first 24 hours, nor one begun before a resume", () => {
    const judged = judgedHour(NOW).from;
    const burst = { lastHourRequests: 50_000 };
    expect(judge(activity({ ...burst, createdAt: judged - DAY_MS + 1 }), NOW)).toBeNull();
    expect(judge(activity({ ...burst, createdAt: judged - DAY_MS }), NOW)?.rule).toBe('requests');
    expect(judge(activity({ ...burst, resumedAt: judged + 1 }), NOW)).toBeNull();
    expect(judge(activity({ ...burst, resumedAt: judged }), NOW)?.rule).toBe('requests');
  });
});
