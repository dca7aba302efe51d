import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/schema.ts';
import { KeyCache } from '../../src/resources/keys/key.cache.ts';

const SECRET = `vw_test_${'b'.repeat(32)}000000`;

describe('KeyCache.lookup', () => {
  it('runs beforeRead before it reads a secret from the database, and reads nothing when that throws', async () => {
    const reads: string[] = [];
    const db = new Proxy(
      {},
      {
        get: (_target, name) => {
          reads.push(String(name));
          throw new Error('read the database');
        },
      },
    ) as Db;
    const cache = new KeyCache(db, 60_000);
    const blocked = async () => {
      throw new Error('blocked');
    };
    await expect(cache.lookup(SECRET, blocked)).rejects.toThrow('blocked');
    expect(reads).toEqual([]);
    await expect(cache.lookup(SECRET, async () => {})).rejects.toThrow('read the database');
    expect(reads.length).toBeGreaterThan(0);
  });
});
