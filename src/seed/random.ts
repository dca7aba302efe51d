/**
 * The seeder's dice. Plain Math.random: seeded data is meant to look real, not to be
 * reproduced, and this is the hot path of a million-customer seed.
 */
export function int(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

export function chance(p: number): boolean {
  return Math.random() < p;
}

export function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)]!;
}

/** One of the keys, with probability proportional to its weight. */
export function weighted<K extends string>(weights: Record<K, number>): K {
  const entries = Object.entries(weights) as [K, number][];
  let r = Math.random() * entries.reduce((sum, [, w]) => sum + w, 0);
  for (const [key, w] of entries) {
    r -= w;
    if (r < 0) return key;
  }
  return entries[entries.length - 1]![0];
}

/** Up to n distinct items, in random order. */
export function sample<T>(items: readonly T[], n: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

/** A whole number of minutes in [min, max] as milliseconds. */
export function minutes(min: number, max: number): number {
  return int(min, max) * 60_000;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * n base62 characters from Math.random: for labels that only need to be unlikely to
 * repeat (order line ids, card code endings), not unguessable like record ids (newId).
 */
export function token(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += BASE62[Math.floor(Math.random() * 62)];
  return out;
}
