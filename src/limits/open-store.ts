import type { Config } from '../config.ts';
import type { Writer } from '../db/write.ts';
import { DailyCounterRepo } from './daily-counter.repo.ts';
import type { LimitStore } from './limit-store.ts';
import { MemoryLimitStore, type LimitLog } from './memory-store.ts';

/**
 * The limit store the config asks for: Redis when REDIS_URL is set (every process shares
 * the counts), else this process's memory with daily counts kept in the database.
 */
export async function openLimitStore(
  config: Pick<Config, 'redisUrl' | 'redisPrefix'>,
  db: Writer,
  now: number,
  log?: LimitLog,
): Promise<LimitStore> {
  if (config.redisUrl) {
    // Loaded only with REDIS_URL set: ioredis is not needed by a single process.
    const { RedisLimitStore } = await import('./redis-store.ts');
    const store = new RedisLimitStore({ url: config.redisUrl, prefix: config.redisPrefix, ...(log ? { log } : {}) });
    await store.start();
    return store;
  }
  const store = new MemoryLimitStore({ daily: new DailyCounterRepo(db), ...(log ? { log } : {}) });
  await store.start(now);
  return store;
}
