import type { Selectable } from 'kysely';
import type { ListTable, Queryable, TagTable } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import type { RequestScope } from '../http/types.ts';
import { isIdOf, type IdKind } from '../lib/ids.ts';
import { finishPage, pageQuery, planPage, type Page, type PageParams } from './paging.ts';

/**
 * Tags and lists are the workspace's own vocabulary that customer memberships point at,
 * so they live in real columns rather than JSON `data`. Both are shared by live and test
 * keys (DECISIONS "Lists and ids"), hence no mode in their scope.
 */
interface ColumnTables {
  tags: TagTable;
  lists: ListTable;
}
export type ColumnTable = keyof ColumnTables;
export type ColumnRow<T extends ColumnTable> = Selectable<ColumnTables[T]>;

export interface ColumnCollection<T extends ColumnTable, R> {
  table: T;
  /** The `object` value and the cursor's binding. */
  object: string;
  idKind: IdKind;
  toRecord: (row: ColumnRow<T>) => R;
}

function scoped<T extends ColumnTable>(db: Queryable, spec: ColumnCollection<T, unknown>, scope: RequestScope) {
  // One query shape for both tables; `tags` stands in for the type checker only.
  return db
    .selectFrom(spec.table as 'tags')
    .selectAll()
    .where('workspace_id', '=', scope.workspaceId);
}

export async function listColumnRows<T extends ColumnTable, R>(
  db: Queryable,
  spec: ColumnCollection<T, R>,
  scope: RequestScope,
  params: PageParams,
): Promise<Page<R>> {
  const plan = planPage(spec.object, params, {}, scope.key.limits);
  const rows = await pageQuery(scoped(db, spec, scope), spec.table, plan).execute();
  return finishPage(plan, rows, (row) => spec.toRecord(row as ColumnRow<T>));
}

/** One record and its version for the ETag; any id this key cannot see is a 404. */
export async function getColumnRow<T extends ColumnTable, R>(
  db: Queryable,
  spec: ColumnCollection<T, R>,
  scope: RequestScope,
  id: string,
): Promise<{ record: R; version: string }> {
  if (!isIdOf(spec.idKind, id)) throw notFound(`No ${spec.object} ${id.slice(0, 64)}.`);
  const row = await scoped(db, spec, scope).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(`No ${spec.object} ${id}.`);
  return { record: spec.toRecord(row as ColumnRow<T>), version: row.updated_at.toString(36) };
}
