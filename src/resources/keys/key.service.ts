import type { Db } from '../../db/schema.ts';
import type { Writer } from '../../db/write.ts';
import { ApiError, invalid, notFound } from '../../errors.ts';
import { isIdOf, newId } from '../../lib/ids.ts';
import { hashKeySecret, newKeySecret } from '../../lib/key-secret.ts';
import type { Clock } from '../../lib/time.ts';
import {
  COLLECTIONS,
  MAX_KEYS_PER_WORKSPACE,
  WRITES,
  parseLimitOverrides,
  standardWrites,
  type ApiKey,
  type Collection,
  type KeyAccess,
  type KeyLimits,
  type KeyMode,
  type KeyStatus,
  type WritePermission,
} from './key.model.ts';
import {
  countLiveKeys,
  findKeyById,
  findKeyRecord,
  insertKey,
  listKeyRecords,
  updateKey,
  type KeyRecord,
} from './key.repo.ts';
import { parseAllowedIps } from './allowed-ips.ts';
import { workspaceExists } from '../workspaces/workspace.repo.ts';
import type { AuditActor } from '../audit/audit.model.ts';
import { recordAudit } from '../audit/audit.service.ts';

export interface CreateKeyInput {
  workspaceId: string;
  name: string;
  mode: KeyMode;
  access: KeyAccess;
  restricted?: { canRead: string[]; canWrite: string[] };
  contactsMasked?: boolean;
  expiresAt?: number | null;
  limits?: Record<string, unknown>;
  createdBy?: string | null;
  /** Who agreed to the API terms, the acceptable use policy and the data and privacy terms. */
  agreedBy?: string | null;
  /** Addresses and CIDR ranges it may be used from; none for anywhere. */
  allowedIps?: string[];
  /** Who made it, for the audit log; a key made without one (tests, the demo) is not audited. */
  by?: AuditActor;
}

/** A list as given, checked and normalised; a 400 naming the entry it cannot read. */
export function checkAllowedIps(entries: readonly string[]): string[] {
  try {
    return parseAllowedIps(entries);
  } catch (e) {
    throw invalid((e as Error).message, [{ field: 'allowed_ips', message: (e as Error).message }]);
  }
}

function checkRestriction(input: CreateKeyInput): { canRead: Collection[]; canWrite: WritePermission[] } {
  const allowedWrites = standardWrites(input.mode, input.access);
  if (!input.restricted) return { canRead: [...COLLECTIONS], canWrite: allowedWrites };
  const canRead = [...new Set(input.restricted.canRead)];
  const canWrite = [...new Set(input.restricted.canWrite)];
  for (const c of canRead) {
    if (!(COLLECTIONS as readonly string[]).includes(c)) {
      throw invalid(`unknown collection "${c}" in can_read (one of ${COLLECTIONS.join(', ')})`, [
        { field: 'can_read', message: `"${c}" is not a collection` },
      ]);
    }
  }
  for (const w of canWrite) {
    if (!(WRITES as readonly string[]).includes(w))
      throw invalid(`unknown write "${w}" (one of ${WRITES.join(', ')})`, [
        { field: 'can_write', message: `"${w}" is not a write` },
      ]);
    if (!(allowedWrites as string[]).includes(w)) {
      const detail = `a ${input.mode} ${input.access} key cannot be given "${w}"`;
      throw invalid(detail, [{ field: 'can_write', message: detail }]);
    }
  }
  // Every customer write answers the whole customer: a key that may not read customers
  // must not be able to read them through a write (DECISIONS "Keys": a read outside can_read is 403).
  const answersCustomer = canWrite.filter((w) => w.startsWith('customers.'));
  if (answersCustomer.length > 0 && !canRead.includes('customers')) {
    const detail = `${answersCustomer.join(', ')} answer the customer, so they need "customers" in can_read`;
    throw invalid(detail, [{ field: 'can_read', message: detail }]);
  }
  return { canRead: canRead as Collection[], canWrite: canWrite as WritePermission[] };
}

/**
 * Makes a key; the secret is in the answer and nowhere else, ever (SPEC "Authentication" 4).
 * Answered only once the key is durable: a secret for a key that was not stored is never shown.
 */
export async function createKey(
  store: Writer,
  clock: Clock,
  input: CreateKeyInput,
): Promise<{ key: ApiKey; secret: string }> {
  const name = input.name.trim();
  if (!name || name.length > 100)
    throw invalid('a key needs a name of 1 to 100 characters', [
      { field: 'name', message: 'needs 1 to 100 characters' },
    ]);
  const { canRead, canWrite } = checkRestriction(input);
  let limits: Partial<KeyLimits>;
  try {
    limits = parseLimitOverrides(input.limits ?? {});
  } catch (e) {
    throw invalid((e as Error).message, [{ field: 'limits', message: (e as Error).message }]);
  }
  const now = clock();
  if (input.expiresAt != null && input.expiresAt <= now)
    throw invalid('expires_at must be in the future', [{ field: 'expires_at', message: 'must be in the future' }]);
  const allowedIps = checkAllowedIps(input.allowedIps ?? []);
  const secret = newKeySecret(input.mode);
  const id = newId('key');
  const key = await store.write(async (tx) => {
    if (!(await workspaceExists(tx, input.workspaceId))) throw notFound(`no workspace ${input.workspaceId}`);
    // DECISIONS "Keys": at most 25 keys that are not revoked per workspace.
    if ((await countLiveKeys(tx, input.workspaceId)) >= MAX_KEYS_PER_WORKSPACE) {
      throw new ApiError('conflict', `a workspace may hold at most ${MAX_KEYS_PER_WORKSPACE} keys; revoke one first`);
    }
    await insertKey(tx, {
      id,
      workspace_id: input.workspaceId,
      name,
      secret_hash: hashKeySecret(secret),
      mode: input.mode,
      access: input.access,
      kind: input.restricted ? 'restricted' : 'standard',
      can_read: JSON.stringify(canRead),
      can_write: JSON.stringify(canWrite),
      contacts_masked: input.contactsMasked ? 1 : 0,
      expires_at: input.expiresAt ?? null,
      status: 'active',
      limits: JSON.stringify(limits),
      allowed_ips: JSON.stringify(allowedIps),
      created_by: input.createdBy ?? null,
      agreed_by: input.agreedBy ?? input.createdBy ?? null,
      agreed_at: (input.agreedBy ?? input.createdBy) ? now : null,
      created_at: now,
      updated_at: now,
    });
    if (input.by)
      await recordAudit(tx, {
        workspaceId: input.workspaceId,
        at: now,
        by: input.by,
        action: 'key.created',
        target: id,
        detail: {
          name,
          mode: input.mode,
          access: input.access,
          ...(allowedIps.length ? { allowed_ips: allowedIps } : {}),
        },
      });
    return findKeyById(tx, id);
  });
  if (!key) throw new Error('key vanished after insert');
  return { key, secret };
}

const MOVES: Record<'pause' | 'resume' | 'revoke', { from: KeyStatus[]; to: KeyStatus }> = {
  pause: { from: ['active', 'paused'], to: 'paused' },
  resume: { from: ['paused', 'active'], to: 'active' },
  revoke: { from: ['active', 'paused', 'revoked'], to: 'revoked' },
};

const AUDITED_MOVE = { pause: 'key.paused', resume: 'key.resumed', revoke: 'key.revoked' } as const;

/**
 * Moves a key through its lifecycle (SPEC "States and transitions"). Bumping updated_at
 * is what makes every process's key cache pick the change up (see key.cache.ts).
 */
export async function changeKeyStatus(
  store: Writer,
  clock: Clock,
  keyId: string,
  move: 'pause' | 'resume' | 'revoke',
  reason: string | null = null,
  by?: AuditActor,
): Promise<ApiKey> {
  if (!isIdOf('key', keyId)) throw notFound(`no key ${keyId}`);
  const { from, to } = MOVES[move];
  return store.write(async (tx) => {
    const current = await findKeyById(tx, keyId);
    if (!current) throw notFound(`no key ${keyId}`);
    if (!from.includes(current.status)) throw new ApiError('conflict', `a ${current.status} key cannot be ${move}d`);
    const now = clock();
    await updateKey(tx, keyId, {
      status: to,
      updated_at: Math.max(now, current.updatedAt + 1),
      ...(move === 'pause' ? { paused_at: now, pause_reason: reason ?? 'paused by an operator' } : {}),
      // resumed_at: the activity check forgives what came before a resume (004-activity).
      ...(move === 'resume' ? { paused_at: null, pause_reason: null, resumed_at: now } : {}),
      ...(move === 'revoke' ? { revoked_at: current.revokedAt ?? now } : {}),
    });
    if (by)
      await recordAudit(tx, {
        workspaceId: current.workspaceId,
        at: now,
        by,
        action: AUDITED_MOVE[move],
        target: keyId,
        detail: move === 'pause' ? { reason: reason ?? 'paused by an operator' } : {},
      });
    return (await findKeyById(tx, keyId))!;
  });
}

/** What a key's row says of it now: expired is a time, not a stored status. */
export function keyState(key: ApiKey, now: number): KeyStatus | 'expired' {
  if (key.status !== 'revoked' && key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return key.status;
}

/** A workspace's keys, newest first, and how many of the 25 are in use (the console's keys page). */
export async function listWorkspaceKeys(
  db: Db,
  workspaceId: string,
): Promise<{ keys: KeyRecord[]; inUse: number; max: number }> {
  const keys = await listKeyRecords(db, workspaceId);
  return { keys, inUse: keys.filter((k) => k.status !== 'revoked').length, max: MAX_KEYS_PER_WORKSPACE };
}

/** One key of the workspace; a key of another workspace is as unknown as one that does not exist. */
export async function getWorkspaceKey(db: Db, workspaceId: string, keyId: string): Promise<KeyRecord> {
  const key = isIdOf('key', keyId) ? await findKeyRecord(db, workspaceId, keyId) : null;
  if (!key) throw notFound(`no key ${keyId.slice(0, 64)}`);
  return key;
}

/** A person moving one of their workspace's keys (the console): the same move as the CLI's. */
export async function changeWorkspaceKeyStatus(
  store: Writer,
  clock: Clock,
  workspaceId: string,
  keyId: string,
  move: 'pause' | 'resume' | 'revoke',
  reason: string | null,
  by: AuditActor,
): Promise<ApiKey> {
  await getWorkspaceKey(store.db, workspaceId, keyId);
  const why = reason?.trim() ?? '';
  if (why.length > 500)
    throw invalid('a pause reason has at most 500 characters', [
      { field: 'reason', message: 'has at most 500 characters' },
    ]);
  return changeKeyStatus(store, clock, keyId, move, why || null, by);
}
