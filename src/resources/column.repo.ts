import type { Selectable } from 'kysely';
import type { Queryable } from '../db/schema.ts';
import type { ListTable, TagTable } from '../db/tables/customer.ts';
import type { PagePlan } from './paging.model.ts';
import { pageQuery } from './paging.repo.ts';

/**
 * Tags and lists: the workspace's own vocabulary that customer memberships point at, in
 * real columns. Both are shared by live and test keys (DECISIONS "Lists and ids"), hence
 * no mode in their scope.
 */
interface ColumnTables {
  tags: TagTable;
  lists: ListTable;
}
export type ColumnTable = keyof ColumnTables;
export type ColumnRow<T extends ColumnTable> = Selectable<ColumnTables[T]> & {
  id: string;
  created_at: number;
  updated_at: number;
};

function scoped(db: Queryable, table: ColumnTable, workspaceId: string) {
  // One query shape for both tables; `tags` stands in for the type checker only.
  return db
    .selectFrom(table as 'tags')
    .selectAll()
    .where('workspace_id', '=', workspaceId);
}

export async function pageColumnRows<T extends ColumnTable>(
  db: Queryable,
  table: T,
  workspaceId: string,
  plan: PagePlan,
): Promise<ColumnRow<T>[]> {
  return (await pageQuery(scoped(db, table, workspaceId), table, plan).execute()) as ColumnRow<T>[];
}

export async function findColumnRow<T extends ColumnTable>(
  db: Queryable,
  table: T,
  workspaceId: string,
  id: string,
): Promise<ColumnRow<T> | undefined> {
  return (await scoped(db, table, workspaceId).where('id', '=', id).executeTakeFirst()) as ColumnRow<T> | undefined;
}
