import { sql, type Expression } from 'kysely';
import type { Engine } from '../db/dialects/types.ts';
import { filterColumnNames, fromApiRecord, toDocRow, type DocTable } from '../db/doc-rows.ts';
import type { Queryable, Tx } from '../db/schema.ts';
import type { CustomerListTable, CustomerTable, CustomerTagTable } from '../db/tables/customer.ts';
import type { Customer } from '../resources/customers/customer.schema.ts';
import type { WritePipeline } from '../resources/writes/write.pipeline.ts';
import {
  type CustomerLinks,
  group,
  type ImportedCustomer,
  logImportedCustomers,
  recordsBefore,
} from './customer-log.ts';
import type { TableName } from './record-kinds.ts';

/**
 * Upserts by id within the workspace (the conflict update is guarded by workspace_id,
 * so a row of another workspace is never touched even if one appeared since the check).
 * What an update derives from the stored row (updated_at, a customer's version) is
 * computed by the upsert itself, from the row as it is when written: a value read before
 * the transaction could be stale by then (two states under one ETag, updated_at going back).
 */
// biome-ignore lint/suspicious/noExplicitAny: a record the import's schema check has already validated
type Rec = Record<string, any>;
type SetList = Record<string, Expression<unknown>>;

const ms = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

function fromExcluded(columns: string[]): SetList {
  return Object.fromEntries(columns.map((c) => [c, sql.ref(`excluded.${c}`)]));
}

/** The record's updated_at, yet always past the stored one, so `updated_since` syncs see the change. */
function laterUpdatedAt(engine: Engine, table: TableName): Expression<number> {
  return engine.greatest(sql.ref<number>('excluded.updated_at'), sql<number>`${sql.ref(`${table}.updated_at`)} + 1`);
}

async function upsert(
  db: Queryable,
  engine: Engine,
  table: TableName,
  workspaceId: string,
  rows: Rec[],
  set: SetList,
  returning: string[] = [],
): Promise<Rec[]> {
  const written: Rec[] = [];
  if (rows.length === 0) return written;
  const per = engine.maxInsertRows(Object.keys(rows[0]!).length);
  for (let i = 0; i < rows.length; i += per) {
    const query = db
      .insertInto(table as 'venues')
      .values(rows.slice(i, i + per) as never)
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet(set as never)
          .where(sql.ref(`${table}.workspace_id`), '=', workspaceId),
      );
    if (returning.length === 0) await query.execute();
    else written.push(...((await query.returning(returning as never).execute()) as Rec[]));
  }
  return written;
}

/** Every column of the row but the key, its workspace and the ones the upsert computes. */
function copied(row: Rec, keep: string[] = []): string[] {
  return Object.keys(row).filter((c) => !['id', 'workspace_id', 'updated_at', ...keep].includes(c));
}

export async function writeDocs(tx: Tx, engine: Engine, table: DocTable, workspaceId: string, records: Rec[]) {
  const rows = records.map((r) => toDocRow(table, workspaceId, fromApiRecord(r)));
  const columns = ['created_at', 'data', ...filterColumnNames(table)];
  await upsert(tx, engine, table, workspaceId, rows, {
    ...fromExcluded(columns),
    updated_at: laterUpdatedAt(engine, table),
  });
}

export async function writeVocabulary(
  tx: Tx,
  engine: Engine,
  table: 'tags' | 'lists',
  workspaceId: string,
  records: Rec[],
) {
  const rows = records.map((r) => ({
    id: r.id,
    workspace_id: workspaceId,
    name: r.name,
    ...(table === 'lists' ? { slug: r.slug, description: r.description, kind: r.kind } : {}),
    created_at: Date.parse(r.created_at),
    updated_at: Date.parse(r.updated_at),
  }));
  if (rows.length === 0) return;
  await upsert(tx, engine, table, workspaceId, rows, {
    ...fromExcluded(copied(rows[0]!)),
    updated_at: laterUpdatedAt(engine, table),
  });
}

type ImportedRow = Omit<CustomerTable, 'gender' | 'how_heard_about_us' | 'created_by_key_id'>;

function customerRow(c: Customer, workspaceId: string): ImportedRow {
  return {
    id: c.id,
    workspace_id: workspaceId,
    livemode: c.livemode ? 1 : 0,
    first_name: c.first_name.trim(),
    last_name: c.last_name,
    nickname: c.nickname,
    email: c.email,
    phone: c.phone,
    date_of_birth: c.date_of_birth,
    company: c.company,
    address_line1: c.address.line1,
    address_line2: c.address.line2,
    address_suburb: c.address.suburb,
    address_state: c.address.state,
    address_postcode: c.address.postcode,
    address_country: c.address.country,
    adult: c.adult === null ? null : c.adult ? 1 : 0,
    marketing_consent: c.marketing_consent ? 1 : 0,
    member: c.membership.member ? 1 : 0,
    member_tier: c.membership.tier,
    // A new customer starts at 1; an update's version is the stored one plus one (below).
    version: 1,
    created_at: Date.parse(c.created_at),
    updated_at: Date.parse(c.updated_at),
    deleted_at: null,
  };
}

async function insertAll(db: Queryable, engine: Engine, table: 'customer_tags' | 'customer_lists', rows: Rec[]) {
  if (rows.length === 0) return;
  const per = engine.maxInsertRows(Object.keys(rows[0]!).length);
  for (let i = 0; i < rows.length; i += per)
    await db
      .insertInto(table)
      .values(rows.slice(i, i + per) as never)
      .execute();
}

/**
 * Customers and their memberships: the record's tags and lists become exactly the
 * customer's. A membership that was already there keeps the key that added it, so
 * DELETE /test-data still knows what a test key did (DECISIONS "Customers"). Each customer
 * written gets its change-log row in this same transaction (DECISIONS "Change log and
 * undo"): an undo then sees the import as a later change by someone else.
 */
export async function writeCustomers(
  tx: Tx,
  writes: WritePipeline,
  engine: Engine,
  workspaceId: string,
  records: Customer[],
  at: number,
) {
  if (records.length === 0) return;
  const ids = records.map((c) => c.id);
  // Held until commit: nobody changes them between this read and the write below.
  const stored = await holdCustomers(tx, workspaceId, ids);
  const linksBefore = await linksOf(tx, workspaceId, ids);
  const before = await recordsBefore(tx, { workspaceId, at }, stored);
  const rows = records.map((c) => customerRow(c, workspaceId));
  // DECISIONS "Customers": version changes on every change; an import is one.
  const set = {
    ...fromExcluded(copied(rows[0]!, ['livemode', 'version'])),
    version: sql<number>`${sql.ref('customers.version')} + 1`,
    updated_at: laterUpdatedAt(engine, 'customers'),
  };
  // On PostgreSQL the counts go with the row (the memberships written below are exactly the
  // record's) and the triggers stand aside: counting after the fact updated every row again.
  const counted = await engine.pauseMembershipCounts(tx);
  const written = counted
    ? await upsert(
        tx,
        engine,
        'customers',
        workspaceId,
        records.map((c, i) => ({ ...rows[i]!, tag_count: c.tags.length, list_count: c.lists.length })),
        { ...set, ...fromExcluded(['tag_count', 'list_count']) },
        ['id', 'version'],
      )
    : await upsert(tx, engine, 'customers', workspaceId, rows, set, ['id', 'version']);
  const versions = new Map(written.map((r) => [r.id as string, Number(r.version)]));
  const mine = records.filter((c) => versions.has(c.id));
  if (mine.length === 0) return;
  const mineIds = mine.map((c) => c.id);
  await tx
    .deleteFrom('customer_tags')
    .where('workspace_id', '=', workspaceId)
    .where('customer_id', 'in', mineIds)
    .execute();
  await tx
    .deleteFrom('customer_lists')
    .where('workspace_id', '=', workspaceId)
    .where('customer_id', 'in', mineIds)
    .execute();
  const keptKey = (kind: 'tags' | 'lists', customerId: string, id: string) =>
    linksBefore.get(customerId)?.[kind].get(id)?.added_by_key_id ?? null;
  const tags: CustomerTagTable[] = mine.flatMap((c) =>
    c.tags.map((t) => ({
      workspace_id: workspaceId,
      customer_id: c.id,
      tag_id: t.id,
      added_at: ms(t.added_at),
      added_by_key_id: keptKey('tags', c.id, t.id),
    })),
  );
  const lists: CustomerListTable[] = mine.flatMap((c) =>
    c.lists.map((l) => ({
      workspace_id: workspaceId,
      customer_id: c.id,
      list_id: l.id,
      status: l.status ?? 'active',
      added_at: ms(l.added_at),
      unsubscribed_at: ms(l.unsubscribed_at),
      added_by_key_id: keptKey('lists', c.id, l.id),
    })),
  );
  await insertAll(tx, engine, 'customer_tags', tags);
  await insertAll(tx, engine, 'customer_lists', lists);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const imported: ImportedCustomer[] = mineIds.map((id) => ({ row: byId.get(id)!, version: versions.get(id)! }));
  await logImportedCustomers(tx, writes, { workspaceId, at }, imported, stored, linksBefore, { tags, lists }, before);
}

const BATCH = 500;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH));
  return out;
}

/**
 * Reads the stored customers the batch names and holds their rows until the transaction
 * ends (an UPDATE that changes nothing takes the row lock on PostgreSQL; SQLite's write
 * transaction is already the only one), so what the log says they were is what was replaced.
 */
async function holdCustomers(tx: Tx, workspaceId: string, ids: string[]): Promise<Map<string, CustomerTable>> {
  const held = new Map<string, CustomerTable>();
  for (const part of chunks([...ids].sort())) {
    const rows = await tx
      .updateTable('customers')
      .set((eb) => ({ version: eb.ref('version') }))
      .where('workspace_id', '=', workspaceId)
      .where('id', 'in', part)
      .returningAll()
      .execute();
    for (const r of rows) held.set(r.id, r);
  }
  return held;
}

/** The customers' tag and list memberships as they are now. */
async function linksOf(tx: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, CustomerLinks>> {
  const tags: CustomerTagTable[] = [];
  const lists: CustomerListTable[] = [];
  for (const part of chunks(ids)) {
    tags.push(
      ...(await tx
        .selectFrom('customer_tags')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('customer_id', 'in', part)
        .execute()),
    );
    lists.push(
      ...(await tx
        .selectFrom('customer_lists')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('customer_id', 'in', part)
        .execute()),
    );
  }
  return group(tags, lists);
}
