// Version N+1 for the rolling-upgrade test (docs/operations.md "Rolling out a new version"):
// this build's CLI (`serve`, `migrate`, …) with one more migration, which adds a column. It is
// a separate entry under test/, run from tsc's unbundled output in dist/ so it shares the one
// migrations table with the build; nothing in src/ or the bundle can reach it.
import { sql } from 'kysely';

const root = new URL('../../../dist/', import.meta.url);
const { migrations } = await import(new URL('db/migrations/index.js', root).href);

// Named to sort after every migration the build has or will have.
export const NEXT_MIGRATION = '999-next-version-note';

migrations[NEXT_MIGRATION] = {
  // Expand only: a nullable column that version N neither reads nor writes.
  async up(db) {
    await sql`alter table customers add column next_version_note text`.execute(db);
  },
  async down(db) {
    await sql`alter table customers drop column next_version_note`.execute(db);
  },
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const { runCli } = await import(new URL('cli/main.js', root).href);
  await runCli(process.argv);
}
