import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, the membership-count triggers (007) stand aside for a transaction that set
 * `venue.membership_counts` to `off` (Engine.pauseMembershipCounts): a bulk writer (seed,
 * import) that writes the counts itself, set-wise. Counting each batch after the rows were
 * written updated every customer a second time and made the seed several times
 * slower. The setting is local to its transaction, so every other writer is
 * counted as before. SQLite's per-row triggers cost little and stay as they are.
 */
const TABLES = [
  { links: 'customer_tags', count: 'tag_count' },
  { links: 'customer_lists', count: 'list_count' },
] as const;

const PAUSED = `if current_setting('venue.membership_counts', true) = 'off' then return null; end if;`;

async function functions(db: Kysely<any>, guard: string): Promise<void> {
  for (const { links, count } of TABLES) {
    for (const [event, rows, sign] of [
      ['insert', 'new_rows', '+'],
      ['delete', 'old_rows', '-'],
    ] as const) {
      await sql
        .raw(
          `create or replace function ${links}_count_${event}() returns trigger language plpgsql as $$ begin
             ${guard}
             update customers c set ${count} = c.${count} ${sign} n.k
             from (select customer_id, count(*) as k from ${rows} group by customer_id) n
             where c.id = n.customer_id;
             return null;
           end $$`,
        )
        .execute(db);
    }
    await sql
      .raw(
        `create or replace function ${links}_count_move() returns trigger language plpgsql as $$ begin
           ${guard}
           update customers set ${count} = ${count} - 1 where id = old.customer_id;
           update customers set ${count} = ${count} + 1 where id = new.customer_id;
           return null;
         end $$`,
      )
      .execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await functions(db, PAUSED);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await functions(db, '');
}
