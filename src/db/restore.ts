import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { BackupRefused, checkSqliteFile } from './backup.ts';

/**
 * `venue-api restore FILE --to PATH` (DECISIONS "Operator CLI"): checks a backup and puts it
 * where a stopped server will open it. It never replaces a database: PATH must not exist, so
 * what is there now is moved away by the operator, knowingly.
 */

/** The backup's last migration; refuses a SQLite file that is not a venue-api database. */
function schemaOf(file: string): string | null {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const last = db.prepare('select max(name) as name from kysely_migration').get() as { name: string | null };
    return last.name;
  } catch {
    throw new BackupRefused(`${file} is a SQLite database but not a venue-api one (it has no migrations)`);
  } finally {
    db.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function restoreSqlite(file: string, to: string): Promise<{ schema: string | null }> {
  if (!existsSync(file)) throw new BackupRefused(`there is no backup at ${file}`);
  if (existsSync(to)) throw new BackupRefused(`${to} exists: move it away (with its -wal and -shm files) first`);
  // SQLite would read a WAL left there into the restored file as if it were that file's own.
  for (const left of [`${to}-wal`, `${to}-shm`]) {
    if (existsSync(left)) throw new BackupRefused(`${left} is left from another database: move it away first`);
  }
  await checkSqliteFile(file);
  const schema = schemaOf(file);
  // Copied beside, made durable, then renamed: a crash leaves PATH absent or whole.
  mkdirSync(dirname(to), { recursive: true });
  const next = `${to}.restoring`;
  copyFileSync(file, next);
  syncFile(next);
  renameSync(next, to);
  return { schema };
}
