import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Every customer read folds in the customer's tags and lists (customer-json.repo.ts), two
 * look-ups a customer even when it has none. customers.tag_count and list_count say how many
 * it has, so a read looks only where there is something to find.
 *
 * The database keeps the counts, in triggers on the membership tables, so no writer (the
 * API, undo, import, seed, DELETE /test-data, a shell) can leave them wrong; the
 * application never writes them. A read trusts a count of 0 alone: a count above 0 only
 * sends it to look. On PostgreSQL the insert and delete triggers run once per statement
 * over its transition table, so a bulk insert (seed, import) updates each customer once.
 * SQLite's INSERT OR REPLACE would delete a row without its delete trigger (recursive
 * triggers are off): nothing writes these tables that way, and nothing should.
 */
const TABLES = [
  { links: 'customer_tags', count: 'tag_count' },
  { links: 'customer_lists', count: 'list_count' },
] as const;

async function run(db: Kysely<any>, text: string): Promise<void> {
  await sql.raw(text).execute(db);
}

async function sqliteTriggers(db: Kysely<any>, links: string, count: string): Promise<void> {
  await run(
    db,
    `create trigger ${links}_count_insert after insert on ${links} begin
       update customers set ${count} = ${count} + 1 where id = new.customer_id;
     end`,
  );
  await run(
    db,
    `create trigger ${links}_count_delete after delete on ${links} begin
       update customers set ${count} = ${count} - 1 where id = old.customer_id;
     end`,
  );
  await run(
    db,
    `create trigger ${links}_count_move after update of customer_id on ${links}
     when old.customer_id is not new.customer_id begin
       update customers set ${count} = ${count} - 1 where id = old.customer_id;
       update customers set ${count} = ${count} + 1 where id = new.customer_id;
     end`,
  );
}

async function postgresTriggers(db: Kysely<any>, links: string, count: string): Promise<void> {
  const change = (name: string, rows: string, sign: '+' | '-') =>
    run(
      db,
      `create function ${name}() returns trigger language plpgsql as $$ begin
         update customers c set ${count} = c.${count} ${sign} n.k
         from (select customer_id, count(*) as k from ${rows} group by customer_id) n
         where c.id = n.customer_id;
         return null;
       end $$`,
    );
  await change(`${links}_count_insert`, 'new_rows', '+');
  await run(
    db,
    `create trigger ${links}_count_insert after insert on ${links}
     referencing new table as new_rows for each statement execute function ${links}_count_insert()`,
  );
  await change(`${links}_count_delete`, 'old_rows', '-');
  await run(
    db,
    `create trigger ${links}_count_delete after delete on ${links}
     referencing old table as old_rows for each statement execute function ${links}_count_delete()`,
  );
  // Transition tables cannot go with UPDATE OF a column: a moved row is counted row by row.
  await run(
    db,
    `create function ${links}_count_move() returns trigger language plpgsql as $$ begin
       update customers set ${count} = ${count} - 1 where id = old.customer_id;
       update customers set ${count} = ${count} + 1 where id = new.customer_id;
       return null;
     end $$`,
  );
  await run(
    db,
    `create trigger ${links}_count_move after update of customer_id on ${links}
     for each row when (old.customer_id is distinct from new.customer_id) execute function ${links}_count_move()`,
  );
}

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const { links, count } of TABLES) {
    await db.schema
      .alterTable('customers')
      .addColumn(count, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await run(
      db,
      `update customers set ${count} = (select count(*) from ${links} l where l.customer_id = customers.id)
       where id in (select customer_id from ${links})`,
    );
    if (postgres) await postgresTriggers(db, links, count);
    else await sqliteTriggers(db, links, count);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const { links, count } of TABLES) {
    for (const event of ['insert', 'delete', 'move']) {
      await run(db, `drop trigger if exists ${links}_count_${event}${postgres ? ` on ${links}` : ''}`);
      if (postgres) await run(db, `drop function if exists ${links}_count_${event}()`);
    }
    await db.schema.alterTable('customers').dropColumn(count).execute();
  }
}
