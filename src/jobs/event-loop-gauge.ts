import { performance } from 'node:perf_hooks';

/**
 * How busy this process's event loop has been lately: its utilisation (the share of time it
 * ran callbacks rather than waiting) over the last `windowMs`, read from Node's own count
 * (performance.eventLoopUtilization), so background work can give way to requests.
 */
export interface LoadGauge {
  /** Busier than the gauge's threshold over its last window. */
  busy(): boolean;
  stop(): void;
}

export function eventLoopGauge(threshold = 0.9, windowMs = 100): LoadGauge {
  let last = performance.eventLoopUtilization();
  let busy = false;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    busy = performance.eventLoopUtilization(now, last).utilization > threshold;
    last = now;
  }, windowMs).unref();
  return {
    busy: () => busy,
    stop: () => clearInterval(timer),
  };
}
