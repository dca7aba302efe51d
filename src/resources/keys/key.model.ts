/**
 * What a key is and may do (SPEC "Authentication", DECISIONS "Keys").
 * Pure rules; the cache, repository and routes build on these.
 */
export const COLLECTIONS = [
  'venues',
  'customers',
  'tags',
  'lists',
  'bookings',
  'orders',
  'activities',
  'packages',
  'events',
  'tickets',
  'gift-cards',
] as const;
export type Collection = (typeof COLLECTIONS)[number];

export const WRITES = [
  'customers.create',
  'customers.update',
  'customers.delete',
  'customers.tags',
  'customers.lists',
  'test_data.delete',
] as const;
export type WritePermission = (typeof WRITES)[number];

export const LIMIT_NAMES = [
  'requests_per_minute',
  'requests_per_day',
  'writes_per_minute',
  'writes_per_day',
  'removals_per_day',
  'page_size_default',
  'page_size_max',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type KeyLimits = Record<LimitName, number>;

/** SPEC "Limits". */
export const DEFAULT_KEY_LIMITS: Readonly<KeyLimits> = Object.freeze({
  requests_per_minute: 300,
  requests_per_day: 50_000,
  writes_per_minute: 60,
  writes_per_day: 2_000,
  removals_per_day: 200,
  page_size_default: 25,
  page_size_max: 100,
});

export const DEFAULT_WORKSPACE_REQUESTS_PER_MINUTE = 1_200;
export const MAX_KEYS_PER_WORKSPACE = 25;

export type KeyMode = 'test' | 'live';
export type KeyAccess = 'read' | 'read_write';
export type KeyKind = 'standard' | 'restricted';
export type KeyStatus = 'active' | 'paused' | 'revoked';

export interface ApiKey {
  id: string;
  workspaceId: string;
  name: string;
  mode: KeyMode;
  access: KeyAccess;
  kind: KeyKind;
  canRead: Collection[];
  canWrite: WritePermission[];
  contactsMasked: boolean;
  expiresAt: number | null;
  status: KeyStatus;
  pausedAt: number | null;
  pauseReason: string | null;
  revokedAt: number | null;
  limits: KeyLimits;
  /** Addresses and CIDR ranges the key may be used from; empty for anywhere (allowed-ips.ts). */
  allowedIps: string[];
  /** Until when the secret a roll replaced still works; null when there is none. */
  previousSecretExpiresAt: number | null;
  /** The workspace's own per-minute limit across all its keys. */
  workspaceRequestsPerMinute: number;
  createdAt: number;
  updatedAt: number;
}

/** The writes a standard key of this mode and access may make. */
export function standardWrites(mode: KeyMode, access: KeyAccess): WritePermission[] {
  if (access === 'read') return [];
  return WRITES.filter((w) => w !== 'test_data.delete' || mode === 'test');
}

/** Validate a limit override map (CLI `--limit NAME=VALUE`); throws a readable message. */
export function parseLimitOverrides(entries: Record<string, unknown>): Partial<KeyLimits> {
  const out: Partial<KeyLimits> = {};
  for (const [name, value] of Object.entries(entries)) {
    if (!(LIMIT_NAMES as readonly string[]).includes(name)) {
      throw new Error(`unknown limit "${name}" (one of ${LIMIT_NAMES.join(', ')})`);
    }
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`limit ${name} must be a whole number of 1 or more`);
    out[name as LimitName] = n;
  }
  if ((out.page_size_max ?? 100) > 100) throw new Error('page_size_max cannot exceed 100 (SPEC "Limits")');
  return out;
}

export function effectiveLimits(overrides: Partial<KeyLimits>): KeyLimits {
  const limits = { ...DEFAULT_KEY_LIMITS, ...overrides };
  limits.page_size_default = Math.min(limits.page_size_default, limits.page_size_max);
  return limits;
}
