import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import type { Engine } from './types.ts';

/** `./data/venue.sqlite`, `sqlite:PATH`, or `:memory:`. */
export function sqlitePath(url: string): string {
  return url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
}

export function createSqliteEngine(url: string): Engine {
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path);
  // DECISIONS "Durability": WAL with synchronous=FULL survives a power cut, not only a crash.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('busy_timeout = 5000');
  database.pragma('cache_size = -65536');
  return {
    name: 'sqlite',
    dialect: new SqliteDialect({ database }),
    // One process serves a SQLite file, so the job always runs here.
    async withJobLock(_db, _lock, fn) {
      return { ran: true, value: await fn() };
    },
    maxInsertRows: (columns) => Math.max(1, Math.floor(32_000 / columns)),
  };
}
