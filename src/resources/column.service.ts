import type { Queryable } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { isIdOf, type IdKind } from '../lib/ids.ts';
import type { Actor } from './actor.model.ts';
import { findColumnRow, pageColumnRows, type ColumnRow, type ColumnTable } from './column.repo.ts';
import { finishPage, planPage, type Page, type PageParams } from './paging.model.ts';

/** Reading tags and lists (DECISIONS "Lists and ids"): one page, or one record with its version. */
export interface ColumnCollection<T extends ColumnTable, R> {
  table: T;
  /** The `object` value and the cursor's binding. */
  object: string;
  idKind: IdKind;
  toRecord: (row: ColumnRow<T>) => R;
}

export async function listColumnRows<T extends ColumnTable, R>(
  db: Queryable,
  spec: ColumnCollection<T, R>,
  actor: Actor,
  params: PageParams,
): Promise<Page<R>> {
  const plan = planPage(spec.object, params, {}, actor.pageSize);
  const rows = await pageColumnRows(db, spec.table, actor.workspaceId, plan);
  return finishPage(plan, rows, spec.toRecord);
}

/** One record and its version for the ETag; any id this key cannot see is a 404. */
export async function getColumnRow<T extends ColumnTable, R>(
  db: Queryable,
  spec: ColumnCollection<T, R>,
  actor: Actor,
  id: string,
): Promise<{ record: R; version: string }> {
  if (!isIdOf(spec.idKind, id)) throw notFound(`No ${spec.object} ${id.slice(0, 64)}.`);
  const row = await findColumnRow(db, spec.table, actor.workspaceId, id);
  if (!row) throw notFound(`No ${spec.object} ${id}.`);
  return { record: spec.toRecord(row), version: row.updated_at.toString(36) };
}
