import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (user + system, every thread) of the benches' processes, from /proc/<pid>/stat:
 * Linux only; elsewhere every reading is absent, and a count over a measurement 0.
 */

/** µs a clock tick of /proc (USER_HZ). */
export const TICK_US = (() => {
  const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout);
  return ticks > 0 ? 1_000_000 / ticks : 10_000;
})();

/** A process's name (as /proc/<pid>/comm has it) and CPU ticks so far; null when /proc has no such process. */
function readStat(pid: number | string): { comm: string; ticks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name is in parentheses and may hold spaces; after it, utime is the 12th field and stime the 13th.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** A process's CPU ticks so far; null off Linux or once it has gone. */
export function cpuTicks(pid: number | undefined): number | null {
  return pid === undefined ? null : (readStat(pid)?.ticks ?? null);
}

/** The CPU ticks of one process (a pid), or of every process of that name (`postgres`, `redis-server`), by pid. */
function ticksByPid(of: number | string): Map<number, number> {
  if (typeof of === 'number') {
    const ticks = cpuTicks(of);
    return new Map(ticks === null ? [] : [[of, ticks]]);
  }
  const found = new Map<number, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return found;
  }
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat?.comm === of) found.set(Number(pid), stat.ticks);
  }
  return found;
}

/**
 * Starts counting the CPU ticks of a process, or of every process of a name; the answer
 * tells how many they have used since. Counted by pid: a process that ends meanwhile (an idle
 * backend its pool closed) drops out rather than taking its past ticks off the sum, and one
 * that starts counts from its start.
 */
export function cpuSince(of: number | string): () => number {
  const before = ticksByPid(of);
  return () => {
    let spent = 0;
    for (const [pid, ticks] of ticksByPid(of)) spent += ticks - (before.get(pid) ?? 0);
    return spent;
  };
}
