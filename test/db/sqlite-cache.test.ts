import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openStorage, type Storage } from '../../src/db/index.ts';

/** SQLITE_CACHE_MIB: SQLite's page cache for the server's connection (better-sqlite3's own, 16 MB, unless set). */
describe('SQLite page cache', () => {
  const open: { storage: Storage; dir: string }[] = [];
  afterEach(async () => {
    for (const { storage, dir } of open.splice(0)) {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function cacheKiB(options: { sqliteCacheMiB?: number }): Promise<number> {
    const dir = mkdtempSync(join(tmpdir(), 'venue-cache-'));
    const storage = await openStorage(join(dir, 'venue.sqlite'), options);
    open.push({ storage, dir });
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(storage.db);
    // A negative cache_size is in KiB.
    return -rows[0]!.cache_size;
  }

  it("is better-sqlite3's own unless set, and what the config says when set", async () => {
    expect(loadConfig({}).sqliteCacheMiB).toBeUndefined();
    expect(loadConfig({ SQLITE_CACHE_MIB: '' }).sqliteCacheMiB).toBeUndefined();
    expect(loadConfig({ SQLITE_CACHE_MIB: '256' }).sqliteCacheMiB).toBe(256);
    expect(await cacheKiB({})).toBe(16_000);
    expect(await cacheKiB({ sqliteCacheMiB: 8 })).toBe(8 * 1024);
  });

  it('refuses a setting that is not a whole number of MiB from 1', () => {
    for (const bad of ['0', '-5', '1.5', 'lots']) {
      expect(() => loadConfig({ SQLITE_CACHE_MIB: bad })).toThrow(/SQLITE_CACHE_MIB/);
    }
  });
});
