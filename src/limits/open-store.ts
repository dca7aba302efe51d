import type { Config } from '../config.ts';
import type { Writer } from '../db/write.ts';
import { DailyCounterRepo } from './daily-counter.repo.ts';
import type { LimitStore } from './limit-store.ts';
import { MemoryLimitStore, type LimitLog } from './memory-store.ts';

/**
 * The limit store the config asks for: Redis when REDIS_URL is set (every process shares
 * the counts), else this process's memory. Either way daily counts are kept in the
 * database too, so they outlive a restart of the process or of Redis.
 */
export async function openLimitStore(
  config: Pick<Config, 'redisUrl' | 'redisPrefix' | 'redisCommandTimeoutMs'>,
  db: Writer,
  now: number,
  log?: LimitLog,
): Promise<LimitStore> {
  if (config.redisUrl) {
    // Loaded only with REDIS_URL set: ioredis is not needed by a single process.
    const { RedisLimitStore } = await import('./redis-store.ts');
    const store = new RedisLimitStore({
      url: config.redisUrl,
      prefix: config.redisPrefix,
      commandTimeoutMs: config.redisCommandTimeoutMs,
      daily: new DailyCounterRepo(db),
      ...(log ? { log } : {}),
    });
    await store.start(now);
    return store;
  }
  const store = new MemoryLimitStore({ daily: new DailyCounterRepo(db), ...(log ? { log } : {}) });
  await store.start(now);
  return store;
}
