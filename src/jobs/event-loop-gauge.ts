import { type EventLoopUtilization, performance } from 'node:perf_hooks';

/**
 * How busy this process's event loop has been lately: its utilisation (the share of time it
 * ran callbacks rather than waiting) read from Node's own count
 * (performance.eventLoopUtilization), so background work can give way to requests.
 */
export interface LoadGauge {
  /** Busier than the gauge's threshold lately (see eventLoopGauge). */
  busy(): boolean;
  stop(): void;
}

/** Reads the loop's utilisation counters; Node's own unless a test gives its own. */
export type UtilizationSource = () => EventLoopUtilization;

/**
 * Busy when the last `windowMs` or the last `settleWindows` windows together were over
 * `threshold`. Busy starts at once and ends only when a longer stretch was quiet too: a
 * loaded process's loop dips below the threshold for one window now and then, and work held
 * back while busy must not all start in that one window (on PostgreSQL, where the loop waits on
 * the database more, those dips let the webhook worker run unthrottled through a write burst).
 */
export function eventLoopGauge(
  threshold = 0.9,
  windowMs = 100,
  settleWindows = 10,
  read: UtilizationSource = () => performance.eventLoopUtilization(),
): LoadGauge {
  // The counters at the end of each of the last `settleWindows` windows, oldest first.
  const marks: EventLoopUtilization[] = [read()];
  let busy = false;
  const timer = setInterval(() => {
    const now = read();
    const last = marks[marks.length - 1]!;
    const recent = performance.eventLoopUtilization(now, last).utilization;
    const longer = performance.eventLoopUtilization(now, marks[0]!).utilization;
    busy = recent > threshold || (busy && longer > threshold);
    marks.push(now);
    if (marks.length > settleWindows) marks.shift();
  }, windowMs).unref();
  return {
    busy: () => busy,
    stop: () => clearInterval(timer),
  };
}
