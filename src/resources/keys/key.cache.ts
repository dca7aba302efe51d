import type { Db } from '../../db/schema.ts';
import { hashKeySecret } from '../../lib/key-secret.ts';
import type { ApiKey } from './key.model.ts';
import { findKeyBySecretHash, findKeysChangedSince } from './key.repo.ts';

/**
 * Keys by secret digest, so an authenticated request costs no database round trip.
 * Each process polls for keys changed since its last look every `refreshMs` (one indexed
 * query per process, whatever the traffic), so a pause or revoke made anywhere (another
 * process, the CLI) is seen everywhere within refreshMs plus one query. Polling the shared
 * database needs no extra infrastructure, and works the same on SQLite and PostgreSQL.
 */
export class KeyCache {
  private readonly byHash = new Map<string, ApiKey>();
  private readonly hashById = new Map<string, string>();
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

  async lookup(secret: string): Promise<ApiKey | null> {
    const hash = hashKeySecret(secret);
    const cached = this.byHash.get(hash);
    if (cached) return cached;
    const key = await findKeyBySecretHash(this.db, hash);
    if (key) this.remember(hash, key);
    return key;
  }

  private remember(hash: string, key: ApiKey): void {
    this.byHash.set(hash, key);
    this.hashById.set(key.id, hash);
  }

  /** Re-reads keys changed since the last poll; call from tests to skip the wait. */
  async refresh(): Promise<void> {
    const started = this.now();
    const changed = await findKeysChangedSince(this.db, this.lastPoll - KeyCache.SKEW_MS);
    for (const key of changed) {
      const hash = this.hashById.get(key.id);
      if (hash) this.byHash.set(hash, key);
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
