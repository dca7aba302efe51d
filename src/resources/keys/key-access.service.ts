import type { Writer } from '../../db/write.ts';
import { ApiError, invalid, notFound } from '../../errors.ts';
import { isIdOf } from '../../lib/ids.ts';
import { hashKeySecret, newKeySecret } from '../../lib/key-secret.ts';
import { type Clock, toInstant } from '../../lib/time.ts';
import type { AuditActor } from '../audit/audit.model.ts';
import { recordAudit } from '../audit/audit.service.ts';
import type { ApiKey } from './key.model.ts';
import { findKeyById, rollKeySecret, updateKey } from './key.repo.ts';
import { checkAllowedIps, getWorkspaceKey } from './key.service.ts';

/**
 * Who may use a key, and with which secret (DECISIONS "Request log, key rolling, allowed
 * addresses"): a roll's new secret beside the old one for a while, and the addresses it is bound to.
 */

/** DECISIONS "Request log, key rolling, allowed addresses": the old secret's overlap, in seconds. */
export const DEFAULT_ROLL_OVERLAP_S = 86_400;
export const MAX_ROLL_OVERLAP_S = 604_800;

/**
 * Gives a key a new secret, shown once; the old one works `overlapSeconds` more (0: not at
 * all), and an earlier roll's previous secret ends now. The key keeps its id, settings,
 * limits, change log and undo. Answered once durable, as a new key's secret is.
 */
export async function rollKey(
  store: Writer,
  clock: Clock,
  keyId: string,
  overlapSeconds: number = DEFAULT_ROLL_OVERLAP_S,
  by?: AuditActor,
): Promise<{ key: ApiKey; secret: string }> {
  if (!Number.isSafeInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_ROLL_OVERLAP_S) {
    const detail = `the old secret's overlap is a whole number of seconds from 0 to ${MAX_ROLL_OVERLAP_S} (7 days)`;
    throw invalid(detail, [{ field: 'old_expires_in', message: detail }]);
  }
  if (!isIdOf('key', keyId)) throw notFound(`no key ${keyId.slice(0, 64)}`);
  return store.write(async (tx) => {
    const current = await findKeyById(tx, keyId);
    if (!current) throw notFound(`no key ${keyId}`);
    const now = clock();
    if (current.status === 'revoked') throw new ApiError('conflict', 'a revoked key cannot be rolled');
    if (current.expiresAt !== null && current.expiresAt <= now)
      throw new ApiError('conflict', 'an expired key cannot be rolled');
    const secret = newKeySecret(current.mode);
    const previousUntil = overlapSeconds === 0 ? null : now + overlapSeconds * 1000;
    await rollKeySecret(tx, keyId, hashKeySecret(secret), previousUntil, Math.max(now, current.updatedAt + 1));
    if (by)
      await recordAudit(tx, {
        workspaceId: current.workspaceId,
        at: now,
        by,
        action: 'key.rolled',
        target: keyId,
        detail: { previous_secret_expires_at: toInstant(previousUntil) },
      });
    return { key: (await findKeyById(tx, keyId))!, secret };
  });
}

/** Sets the addresses a key may be used from (an empty list: anywhere); audited. */
export async function setKeyAllowedIps(
  store: Writer,
  clock: Clock,
  keyId: string,
  entries: readonly string[],
  by?: AuditActor,
): Promise<ApiKey> {
  const allowedIps = checkAllowedIps(entries);
  if (!isIdOf('key', keyId)) throw notFound(`no key ${keyId.slice(0, 64)}`);
  return store.write(async (tx) => {
    const current = await findKeyById(tx, keyId);
    if (!current) throw notFound(`no key ${keyId}`);
    if (current.status === 'revoked') throw new ApiError('conflict', 'a revoked key cannot be changed');
    const now = clock();
    await updateKey(tx, keyId, {
      allowed_ips: JSON.stringify(allowedIps),
      updated_at: Math.max(now, current.updatedAt + 1),
    });
    if (by)
      await recordAudit(tx, {
        workspaceId: current.workspaceId,
        at: now,
        by,
        action: 'key.addresses_set',
        target: keyId,
        detail: { allowed_ips: allowedIps },
      });
    return (await findKeyById(tx, keyId))!;
  });
}

/** A person rolling one of their workspace's keys (the console): the same roll as the CLI's. */
export async function rollWorkspaceKey(
  store: Writer,
  clock: Clock,
  workspaceId: string,
  keyId: string,
  overlapSeconds: number,
  by: AuditActor,
): Promise<{ key: ApiKey; secret: string }> {
  await getWorkspaceKey(store.db, workspaceId, keyId);
  return rollKey(store, clock, keyId, overlapSeconds, by);
}

/** A person setting one of their workspace's keys' allowed addresses (the console). */
export async function setWorkspaceKeyAllowedIps(
  store: Writer,
  clock: Clock,
  workspaceId: string,
  keyId: string,
  entries: readonly string[],
  by: AuditActor,
): Promise<ApiKey> {
  await getWorkspaceKey(store.db, workspaceId, keyId);
  return setKeyAllowedIps(store, clock, keyId, entries, by);
}
