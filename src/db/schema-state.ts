import { sql } from 'kysely';
import { migrations } from './migrations/index.ts';
import type { Db } from './schema.ts';
import { unavailableReason } from './unavailable.ts';

/**
 * Whether the database's schema is one this version can run on: every migration it knows has
 * run there. Migrations the database has and this version does not know (a newer version ran
 * them) do not stop it: migrations add before they take away, so a version keeps working on a
 * schema one step ahead of it.
 */
export interface SchemaState {
  /** Migrations of this version the database has not run: the server cannot serve on it. */
  missing: string[];
  /** Migrations the database ran that this version does not know. */
  unknown: string[];
}

/**
 * Read without writing: a start on a full disk (DECISIONS "Durability") must not need a write
 * to learn there is nothing to do, and Kysely's Migrator makes its lock table and row as it goes.
 */
export async function schemaState(db: Db): Promise<SchemaState> {
  const ran = new Set(await executedMigrations(db));
  const known = Object.keys(migrations);
  return {
    missing: known.filter((name) => !ran.has(name)),
    unknown: [...ran].filter((name) => !(name in migrations)).sort(),
  };
}

/** The migrations the database ran; none when it has no bookkeeping yet (a new database). */
async function executedMigrations(db: Db): Promise<string[]> {
  try {
    // Kysely's Migrator keeps its bookkeeping in kysely_migration (name, timestamp).
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return rows.map((r) => r.name);
  } catch (err) {
    if (unavailableReason(err)) throw err; // the database cannot answer: nothing to learn here
    return [];
  }
}
