import type { Migration, MigrationProvider } from 'kysely';
import * as core from './001-core.ts';

/** Migrations are listed here (not read from disk) so they run the same under tsx and tests. */
export const migrations: Record<string, Migration> = {
  '001-core': core,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
