import type { Queryable } from '../db/schema.ts';
import { notFound } from '../errors.ts';
import { isIdOf, type IdKind } from '../lib/ids.ts';
import { maskRecord } from '../lib/mask.ts';
import { toInstant } from '../lib/time.ts';
import type { Actor } from './actor.model.ts';
import { findDocRow, pageDocRows, type DocRow, type DocTable, type FilterFn, type ModeRule } from './doc.repo.ts';
import { emptyPage, finishPage, planPage, type Page, type PageParams } from './paging.model.ts';

/**
 * One service for the read-only collections the platform owns (venues, bookings, orders…):
 * each declares its table, mode rule and filters (`*.collection.ts`); this pages them by
 * keyset and turns rows back into API records.
 */
export interface DocCollection<F extends Record<string, unknown>> {
  table: DocTable;
  /** The `object` value and the cursor's binding. */
  object: string;
  idKind: IdKind;
  mode: ModeRule;
  /** Query parameter -> condition. Parameters absent from the request add nothing. */
  filters: { [K in keyof F]-?: FilterFn };
}

/** A record as GET answers it; its collection's schema types and serialises it at the edge. */
export type DocRecord = Record<string, unknown>;

function toRecord(spec: DocCollection<Record<string, unknown>>, row: DocRow, actor: Actor): DocRecord {
  const record = {
    id: row.id,
    object: spec.object,
    ...(JSON.parse(row.data) as object),
    ...(spec.mode === 'mode' ? { livemode: row.livemode === 1 } : {}),
    created_at: toInstant(row.created_at),
    updated_at: toInstant(row.updated_at),
  };
  // DECISIONS "Keys": contacts where the record's type keeps them (an order's billing details).
  return actor.contactsMasked ? maskRecord(spec.object, record) : record;
}

export async function listDocs<F extends Record<string, unknown>>(
  db: Queryable,
  spec: DocCollection<F>,
  actor: Actor,
  params: PageParams & F,
): Promise<Page<DocRecord>> {
  const { limit, starting_after, updated_since, ...rest } = params;
  const filters = rest as Record<string, unknown>;
  const plan = planPage(spec.object, { limit, starting_after, updated_since }, filters, actor.pageSize);
  if (spec.mode === 'live-only' && !actor.livemode) return emptyPage();
  const conditions = Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => ({ filter: spec.filters[name as keyof F], value }));
  const rows = await pageDocRows(db, spec, actor, plan, conditions);
  return finishPage(plan, rows, (row) => toRecord(spec as DocCollection<Record<string, unknown>>, row, actor));
}

/** One record and its version for the ETag; any id this key cannot see is a 404. */
export async function getDoc(
  db: Queryable,
  spec: DocCollection<Record<string, unknown>>,
  actor: Actor,
  id: string,
): Promise<{ record: DocRecord; version: string }> {
  const missing = () => notFound(`No ${spec.object.replace('_', ' ')} ${id.slice(0, 64)}.`);
  if (!isIdOf(spec.idKind, id)) throw missing();
  if (spec.mode === 'live-only' && !actor.livemode) throw missing();
  const row = await findDocRow(db, spec, actor, id);
  if (!row) throw missing();
  return { record: toRecord(spec, row, actor), version: row.updated_at.toString(36) };
}
