import type { LimitStore } from '../limits/limit-store.ts';
import type { LimitCheck, LimitName } from '../limits/limits.ts';
import type { ApiKey } from '../resources/keys/key.model.ts';
import type { UsageRow } from './views/key.view.ts';

const DAILY: { name: LimitName & keyof ApiKey['limits']; label: string }[] = [
  { name: 'requests_per_day', label: 'Requests per day' },
  { name: 'writes_per_day', label: 'Writes per day' },
  { name: 'removals_per_day', label: 'Removals per day' },
];

const OTHER: { name: keyof ApiKey['limits']; label: string }[] = [
  { name: 'requests_per_minute', label: 'Requests per minute' },
  { name: 'writes_per_minute', label: 'Writes per minute' },
  { name: 'page_size_default', label: 'Default page size' },
  { name: 'page_size_max', label: 'Largest page size' },
];

/**
 * A key's limits with today's counts, read from the same store the API counts in (cost 0
 * asks without counting), so the figures are the ones the API enforces.
 */
export async function usageOf(store: LimitStore, key: ApiKey, now: number): Promise<UsageRow[]> {
  const checks: LimitCheck[] = DAILY.map((d) => ({ name: d.name, subject: key.id, max: key.limits[d.name], cost: 0 }));
  const { states } = await store.consume(checks, now);
  return [
    ...DAILY.map((d, i) => ({ name: d.label, limit: key.limits[d.name], usedToday: states[i]?.count ?? 0 })),
    ...OTHER.map((o) => ({ name: o.label, limit: key.limits[o.name], usedToday: null })),
  ];
}
