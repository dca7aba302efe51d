import { sql, type Insertable, type Updateable } from 'kysely';
import type { Queryable, Tx } from '../../db/schema.ts';
import type { ApiKeyTable } from '../../db/tables/workspace.ts';
import {
  DEFAULT_WORKSPACE_REQUESTS_PER_MINUTE,
  effectiveLimits,
  type ApiKey,
  type Collection,
  type KeyLimits,
  type WritePermission,
} from './key.model.ts';

const KEY_COLUMNS = [
  'api_keys.id',
  'api_keys.workspace_id',
  'api_keys.name',
  'api_keys.mode',
  'api_keys.access',
  'api_keys.kind',
  'api_keys.can_read',
  'api_keys.can_write',
  'api_keys.contacts_masked',
  'api_keys.expires_at',
  'api_keys.status',
  'api_keys.paused_at',
  'api_keys.pause_reason',
  'api_keys.revoked_at',
  'api_keys.limits',
  'api_keys.allowed_ips',
  'api_keys.previous_secret_expires_at',
  'api_keys.created_at',
  'api_keys.updated_at',
] as const;

type KeyRow = Omit<
  ApiKeyTable,
  'secret_hash' | 'previous_secret_hash' | 'created_by' | 'agreed_by' | 'agreed_at' | 'last_used_at'
> & {
  workspace_limits: string;
};

function rowToKey(row: KeyRow): ApiKey {
  const workspaceLimits = JSON.parse(row.workspace_limits) as { requests_per_minute?: number };
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    mode: row.mode,
    access: row.access,
    kind: row.kind,
    canRead: JSON.parse(row.can_read) as Collection[],
    canWrite: JSON.parse(row.can_write) as WritePermission[],
    contactsMasked: row.contacts_masked === 1,
    expiresAt: row.expires_at,
    status: row.status,
    pausedAt: row.paused_at,
    pauseReason: row.pause_reason,
    revokedAt: row.revoked_at,
    limits: effectiveLimits(JSON.parse(row.limits) as Partial<KeyLimits>),
    allowedIps: JSON.parse(row.allowed_ips ?? '[]') as string[],
    previousSecretExpiresAt: row.previous_secret_expires_at ?? null,
    workspaceRequestsPerMinute: workspaceLimits.requests_per_minute ?? DEFAULT_WORKSPACE_REQUESTS_PER_MINUTE,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function selectKeys(db: Queryable) {
  return db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select([...KEY_COLUMNS, 'workspaces.limits as workspace_limits']);
}

/** A key with the digests of its secrets: what the key cache files it under. */
export interface KeyWithSecrets {
  key: ApiKey;
  secretHash: string;
  previousSecretHash: string | null;
}

function selectKeysWithSecrets(db: Queryable) {
  return selectKeys(db).select(['api_keys.secret_hash', 'api_keys.previous_secret_hash']);
}

function withSecrets(row: KeyRow & Pick<ApiKeyTable, 'secret_hash' | 'previous_secret_hash'>): KeyWithSecrets {
  return { key: rowToKey(row), secretHash: row.secret_hash, previousSecretHash: row.previous_secret_hash ?? null };
}

/** The key whose secret, or whose previous secret (a roll's overlap), has this digest. */
export async function findKeyBySecretHash(db: Queryable, secretHash: string): Promise<KeyWithSecrets | null> {
  const row = await selectKeysWithSecrets(db)
    .where((eb) =>
      eb.or([eb('api_keys.secret_hash', '=', secretHash), eb('api_keys.previous_secret_hash', '=', secretHash)]),
    )
    .executeTakeFirst();
  return row ? withSecrets(row) : null;
}

export async function findKeyById(db: Queryable, id: string): Promise<ApiKey | null> {
  const row = await selectKeys(db).where('api_keys.id', '=', id).executeTakeFirst();
  return row ? rowToKey(row) : null;
}

/** Keys whose row, or whose workspace's limits, changed at or after `since`. */
export async function findKeysChangedSince(db: Queryable, since: number): Promise<KeyWithSecrets[]> {
  const rows = await selectKeysWithSecrets(db)
    .where((eb) => eb.or([eb('api_keys.updated_at', '>=', since), eb('workspaces.updated_at', '>=', since)]))
    .execute();
  return rows.map(withSecrets);
}

/** A key with who made it and agreed to the terms, and when it was last used (the console, `keys list`). */
export interface KeyRecord extends ApiKey {
  createdBy: string | null;
  agreedBy: string | null;
  agreedAt: number | null;
  lastUsedAt: number | null;
}

function selectKeyRecords(db: Queryable) {
  return selectKeys(db).select([
    'api_keys.created_by',
    'api_keys.agreed_by',
    'api_keys.agreed_at',
    'api_keys.last_used_at',
  ]);
}

function rowToRecord(
  row: KeyRow & Pick<ApiKeyTable, 'created_by' | 'agreed_by' | 'agreed_at' | 'last_used_at'>,
): KeyRecord {
  return {
    ...rowToKey(row),
    createdBy: row.created_by,
    agreedBy: row.agreed_by,
    agreedAt: row.agreed_at,
    lastUsedAt: row.last_used_at ?? null,
  };
}

/** A workspace's keys with their provenance, newest first. */
export async function listKeyRecords(db: Queryable, workspaceId: string): Promise<KeyRecord[]> {
  const rows = await selectKeyRecords(db)
    .where('api_keys.workspace_id', '=', workspaceId)
    .orderBy('api_keys.created_at', 'desc')
    .orderBy('api_keys.id', 'desc')
    .execute();
  return rows.map(rowToRecord);
}

export async function findKeyRecord(db: Queryable, workspaceId: string, id: string): Promise<KeyRecord | null> {
  const row = await selectKeyRecords(db)
    .where('api_keys.workspace_id', '=', workspaceId)
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
  return row ? rowToRecord(row) : null;
}

/** Stamps keys' last use (the activity tracker's flush: at most one write per key per flush). */
export async function markKeysUsed(tx: Tx, lastUse: Map<string, number>): Promise<void> {
  for (const [id, at] of lastUse) {
    await tx
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

export async function countLiveKeys(db: Queryable, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('status', '!=', 'revoked')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertKey(tx: Tx, row: Insertable<ApiKeyTable>): Promise<void> {
  await tx.insertInto('api_keys').values(row).execute();
}

export async function updateKey(tx: Tx, id: string, set: Updateable<ApiKeyTable>): Promise<void> {
  await tx.updateTable('api_keys').set(set).where('id', '=', id).execute();
}

/** Keys paused right now, in every workspace (the metrics read it at scrape). */
export async function countPausedKeys(db: Queryable): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('status', '=', 'paused')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Gives the key a new secret; the one it replaces works until `previousUntil` (null: no
 * longer), and a previous secret of an earlier roll ends here. One statement: the current
 * digest moves to the previous column as the row is written.
 */
export async function rollKeySecret(
  tx: Tx,
  id: string,
  secretHash: string,
  previousUntil: number | null,
  updatedAt: number,
): Promise<void> {
  await tx
    .updateTable('api_keys')
    .set({
      previous_secret_hash: previousUntil === null ? null : sql<string>`${sql.ref('secret_hash')}`,
      previous_secret_expires_at: previousUntil,
      secret_hash: secretHash,
      updated_at: updatedAt,
    })
    .where('id', '=', id)
    .execute();
}
