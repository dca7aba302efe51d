import type { Db } from '../../db/schema.ts';
import { hashKeySecret } from '../../lib/key-secret.ts';
import type { ApiKey } from './key.model.ts';
import { findKeyBySecretHash, findKeysChangedSince, type KeyWithSecrets } from './key.repo.ts';

/**
 * The key as a secret with this digest presents it: a rolled key's previous secret is the
 * key with an earlier expiry, so it stops as any expired secret does; null for neither secret.
 */
function keyFor(found: KeyWithSecrets, hash: string): ApiKey | null {
  const { key, secretHash, previousSecretHash } = found;
  if (hash === secretHash) return key;
  if (hash !== previousSecretHash || key.previousSecretExpiresAt === null) return null;
  const ends = key.previousSecretExpiresAt;
  return { ...key, expiresAt: key.expiresAt === null ? ends : Math.min(key.expiresAt, ends) };
}

/**
 * Keys by secret digest, so an authenticated request costs no database round trip.
 * Each process polls for keys changed since its last look every `refreshMs` (one indexed
 * query per process, whatever the traffic), so a pause or revoke made anywhere (another
 * process, the CLI) is seen everywhere within refreshMs plus one query. Polling the shared
 * database needs no extra infrastructure, and works the same on SQLite and PostgreSQL.
 */
export class KeyCache {
  private readonly byHash = new Map<string, ApiKey>();
  /** The digests each cached key is filed under: its secret, and its previous one during a roll. */
  private readonly hashesById = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | null = null;
  private lastPoll: number;
  /** Rows written just before a poll can carry an updated_at a little in the past. */
  private static readonly SKEW_MS = 10_000;

  constructor(
    private readonly db: Db,
    private readonly refreshMs: number,
    private readonly now: () => number = Date.now,
    /** Told of each poll's outcome (the database down, say); the next tick polls again. */
    private readonly polls: { failed(err: unknown): void; succeeded(): void } = { failed() {}, succeeded() {} },
  ) {
    this.lastPoll = this.now();
  }

  /** The key a secret names; `beforeRead` runs (and may throw) before a secret not cached here is read from the database. */
  async lookup(secret: string, beforeRead?: () => Promise<void>): Promise<ApiKey | null> {
    const hash = hashKeySecret(secret);
    const cached = this.byHash.get(hash);
    if (cached) return cached;
    await beforeRead?.();
    const found = await findKeyBySecretHash(this.db, hash);
    const key = found && keyFor(found, hash);
    if (!key) return null;
    this.byHash.set(hash, key);
    const hashes = this.hashesById.get(key.id) ?? new Set<string>();
    this.hashesById.set(key.id, hashes.add(hash));
    return key;
  }

  /** Re-reads keys changed since the last poll; call from tests to skip the wait. */
  async refresh(): Promise<void> {
    const started = this.now();
    const changed = await findKeysChangedSince(this.db, this.lastPoll - KeyCache.SKEW_MS);
    for (const found of changed) {
      const hashes = this.hashesById.get(found.key.id);
      for (const hash of hashes ?? []) {
        const key = keyFor(found, hash);
        // A secret rolled away twice is no longer the key's: the next use looks it up, and finds nothing.
        if (key) this.byHash.set(hash, key);
        else {
          this.byHash.delete(hash);
          hashes!.delete(hash);
        }
      }
    }
    this.lastPoll = started;
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.refresh()
        .then(
          () => this.polls.succeeded(),
          (err) => this.polls.failed(err),
        )
        .finally(() => {
          if (this.timer) this.timer = setTimeout(tick, this.refreshMs).unref();
        });
    };
    this.timer = setTimeout(tick, this.refreshMs).unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
