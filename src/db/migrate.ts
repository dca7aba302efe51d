import { Migrator, type MigrationResult } from 'kysely';
import { migrationProvider, migrations } from './migrations/index.ts';
import type { Db } from './schema.ts';
import { schemaState } from './schema-state.ts';

/**
 * The schema step of a deploy (docs/operations.md "Rolling out a new version"). Migrations are
 * written expand-then-contract, so a version runs on a database one migration ahead of it:
 * neither step ever hands Kysely's Migrator a database holding migrations this version does
 * not know, which it would refuse ("previously executed migration … is missing").
 */
export interface MigrateOutcome {
  /** Migrations run up now, in order. */
  applied: string[];
  /** Migrations run down now, newest first. */
  reverted: string[];
  /** The newest migration of this version the database has run (null: none). */
  current: string | null;
  /** Migrations the database ran that this version does not know (a newer version's). */
  unknown: string[];
}

/** The schema cannot be moved by this version; the message says what to do instead. */
export class MigrationRefused extends Error {}

function failure(error: unknown, results: MigrationResult[] | undefined): Error {
  const failed = results?.find((r) => r.status === 'Error');
  return new Error(`${failed ? `migration ${failed.migrationName}` : 'migrating'} failed: ${String(error)}`);
}

function currentOf(missing: string[]): string | null {
  const ran = Object.keys(migrations).filter((name) => !missing.includes(name));
  return ran.at(-1) ?? null;
}

/**
 * Runs this version's migrations the database lacks. Safe from several processes or machines
 * at once on PostgreSQL: Kysely's Migrator runs them in one transaction under an advisory
 * lock, and a process that waited on the lock finds nothing left to run.
 */
export async function migrateToLatest(storage: { readonly db: Db }): Promise<MigrateOutcome> {
  const state = await schemaState(storage.db);
  if (state.missing.length === 0) {
    return { applied: [], reverted: [], current: currentOf([]), unknown: state.unknown };
  }
  if (state.unknown.length > 0) {
    throw new MigrationRefused(
      `the database holds migrations this version does not know (${state.unknown.join(', ')}) and lacks some ` +
        `it needs (${state.missing.join(', ')}); migrate with the newer version, or roll it back first`,
    );
  }
  const { error, results } = await new Migrator({ db: storage.db, provider: migrationProvider }).migrateToLatest();
  if (error) throw failure(error, results);
  return {
    applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
    reverted: [],
    current: currentOf([]),
    unknown: [],
  };
}

/**
 * A rollback: runs down every migration after `name`, newest first. Only the version that
 * added a migration can undo it, so a database holding migrations this version does not
 * know is refused.
 */
export async function migrateDownTo(storage: { readonly db: Db }, name: string): Promise<MigrateOutcome> {
  const known = Object.keys(migrations);
  if (!known.includes(name)) {
    throw new MigrationRefused(`no migration named "${name}"; this version knows ${known.join(', ')}`);
  }
  const state = await schemaState(storage.db);
  if (state.unknown.length > 0) {
    throw new MigrationRefused(
      `the database holds migrations this version does not know (${state.unknown.join(', ')}); ` +
        'roll back with the version that added them',
    );
  }
  if (state.missing.includes(name)) {
    throw new MigrationRefused(`migration ${name} has not run on this database; nothing to roll back to`);
  }
  const { error, results } = await new Migrator({ db: storage.db, provider: migrationProvider }).migrateTo(name);
  if (error) throw failure(error, results);
  const after = await schemaState(storage.db);
  return {
    applied: [],
    reverted: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName),
    current: currentOf(after.missing),
    unknown: [],
  };
}

/**
 * What a process does with the schema before it works (MIGRATE): `auto` migrates, `off` only
 * looks. Says what it ran, and what the database holds beyond this version or lacks, for the log.
 */
export async function prepareSchema(
  storage: { readonly db: Db },
  mode: 'auto' | 'off',
): Promise<{ applied: string[]; missing: string[]; unknown: string[] }> {
  if (mode === 'auto') {
    const { applied, unknown } = await migrateToLatest(storage);
    return { applied, missing: [], unknown };
  }
  return { applied: [], ...(await schemaState(storage.db)) };
}

/** The one sentence for a schema this version cannot run on yet (MIGRATE=off). */
export function missingMigrationsMessage(missing: string[]): string {
  return `the database lacks migrations this version needs (${missing.join(', ')}); run venue-api migrate`;
}
