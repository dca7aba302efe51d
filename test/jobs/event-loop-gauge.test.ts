import type { EventLoopUtilization } from 'node:perf_hooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eventLoopGauge } from '../../src/jobs/event-loop-gauge.ts';

/** A loop whose utilisation over each 100 ms window is given, one window at a time. */
function scriptedLoop() {
  let idle = 0;
  let active = 0;
  return {
    read: (): EventLoopUtilization => ({ idle, active, utilization: active / Math.max(1, idle + active) }),
    window(utilization: number) {
      active += 100 * utilization;
      idle += 100 * (1 - utilization);
      vi.advanceTimersByTime(100);
    },
  };
}

describe('eventLoopGauge', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is busy from the first window over the threshold', () => {
    const loop = scriptedLoop();
    const gauge = eventLoopGauge(0.9, 100, 10, loop.read);
    loop.window(0.5);
    expect(gauge.busy()).toBe(false);
    loop.window(0.95);
    expect(gauge.busy()).toBe(true);
    gauge.stop();
  });

  it('stays busy through one quiet window while the last second was busy', () => {
    const loop = scriptedLoop();
    const gauge = eventLoopGauge(0.9, 100, 10, loop.read);
    for (let i = 0; i < 10; i++) loop.window(0.98);
    loop.window(0.6);
    expect(gauge.busy()).toBe(true);
    loop.window(0.97);
    expect(gauge.busy()).toBe(true);
    gauge.stop();
  });

  it('is no longer busy once the last second was quiet enough', () => {
    const loop = scriptedLoop();
    const gauge = eventLoopGauge(0.9, 100, 10, loop.read);
    for (let i = 0; i < 10; i++) loop.window(0.98);
    const quietWindows: boolean[] = [];
    for (let i = 0; i < 10; i++) {
      loop.window(0.2);
      quietWindows.push(gauge.busy());
    }
    expect(quietWindows[0]).toBe(true);
    expect(quietWindows.at(-1)).toBe(false);
    gauge.stop();
  });

  it('never calls a loop under the threshold busy', () => {
    const loop = scriptedLoop();
    const gauge = eventLoopGauge(0.9, 100, 10, loop.read);
    for (let i = 0; i < 30; i++) {
      loop.window(i % 2 ? 0.85 : 0.3);
      expect(gauge.busy()).toBe(false);
    }
    gauge.stop();
  });
});
