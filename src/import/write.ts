import { sql } from 'kysely';
import type { Engine } from '../db/dialects/types.ts';
import { filterColumnNames, fromApiRecord, toDocRow, type DocTable } from '../db/doc-rows.ts';
import type { CustomerListTable, CustomerTable, CustomerTagTable, Queryable } from '../db/schema.ts';
import type { Customer } from '../resources/customers/customer.schema.ts';
import type { ExistingRow } from './existing.ts';
import type { TableName } from './record-kinds.ts';

/**
 * Upserts by id within the workspace (the conflict update is guarded by workspace_id,
 * so a row of another workspace is never touched even if one appeared since the check).
 * An update moves updated_at past the stored one, so `updated_since` syncs see it.
 */
type Rec = Record<string, any>;

const ms = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

function nextUpdatedAt(rec: Rec, existing: ExistingRow | undefined): number {
  const given = Date.parse(rec.updated_at);
  return existing ? Math.max(given, existing.updatedAt + 1) : given;
}

async function upsert(db: Queryable, engine: Engine, table: TableName, workspaceId: string, rows: Rec[], update: string[]): Promise<void> {
  if (rows.length === 0) return;
  const per = engine.maxInsertRows(Object.keys(rows[0]!).length);
  for (let i = 0; i < rows.length; i += per) {
    await db
      .insertInto(table as 'venues')
      .values(rows.slice(i, i + per) as never)
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet(Object.fromEntries(update.map((c) => [c, sql.ref(`excluded.${c}`)])) as never)
          .where(sql.ref(`${table}.workspace_id`), '=', workspaceId),
      )
      .execute();
  }
}

export async function writeDocs(db: Queryable, engine: Engine, table: DocTable, workspaceId: string, records: Rec[], existing: Map<string, ExistingRow>) {
  const rows = records.map((r) => {
    const doc = fromApiRecord(r);
    doc.updated_at = nextUpdatedAt(r, existing.get(doc.id));
    return toDocRow(table, workspaceId, doc);
  });
  await upsert(db, engine, table, workspaceId, rows, ['created_at', 'updated_at', 'data', ...filterColumnNames(table)]);
}

export async function writeVocabulary(db: Queryable, engine: Engine, table: 'tags' | 'lists', workspaceId: string, records: Rec[], existing: Map<string, ExistingRow>) {
  const rows = records.map((r) => ({
    id: r.id,
    workspace_id: workspaceId,
    name: r.name,
    ...(table === 'lists' ? { slug: r.slug, description: r.description, kind: r.kind } : {}),
    created_at: Date.parse(r.created_at),
    updated_at: nextUpdatedAt(r, existing.get(r.id)),
  }));
  await upsert(db, engine, table, workspaceId, rows, Object.keys(rows[0] ?? {}).filter((c) => c !== 'id' && c !== 'workspace_id'));
}

function customerRow(c: Customer, workspaceId: string, existing: ExistingRow | undefined) {
  const row: Omit<CustomerTable, 'gender' | 'how_heard_about_us' | 'created_by_key_id'> = {
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
    // DECISIONS "Customers": version changes on every change; an import is one.
    version: existing ? existing.version + 1 : 1,
    created_at: Date.parse(c.created_at),
    updated_at: nextUpdatedAt(c, existing),
    deleted_at: null,
  };
  return row;
}

/**
 * Customers and their memberships: the record's tags and lists become exactly the
 * customer's. A membership that was already there keeps the key that added it, so
 * DELETE /test-data still knows what a test key did (DECISIONS "Customers").
 */
export async function writeCustomers(db: Queryable, engine: Engine, workspaceId: string, records: Customer[], existing: Map<string, ExistingRow>) {
  const rows = records.map((c) => customerRow(c, workspaceId, existing.get(c.id)));
  const update = Object.keys(rows[0] ?? {}).filter((c) => !['id', 'workspace_id', 'livemode'].includes(c));
  await upsert(db, engine, 'customers', workspaceId, rows, update);
  const ids = records.map((c) => c.id);
  const keyOf = async (table: 'customer_tags' | 'customer_lists', column: 'tag_id' | 'list_id') => {
    const rows = await db
      .selectFrom(table as 'customer_tags')
      .select(['customer_id', `${column} as target` as 'tag_id', 'added_by_key_id'])
      .where('workspace_id', '=', workspaceId)
      .where('customer_id', 'in', ids)
      .where('added_by_key_id', 'is not', null)
      .execute();
    await db.deleteFrom(table).where('workspace_id', '=', workspaceId).where('customer_id', 'in', ids).execute();
    return new Map(rows.map((r) => [`${r.customer_id}:${r.tag_id}`, r.added_by_key_id]));
  };
  const tagKeys = await keyOf('customer_tags', 'tag_id');
  const listKeys = await keyOf('customer_lists', 'list_id');
  const tags: CustomerTagTable[] = records.flatMap((c) =>
    c.tags.map((t) => ({ workspace_id: workspaceId, customer_id: c.id, tag_id: t.id, added_at: ms(t.added_at), added_by_key_id: tagKeys.get(`${c.id}:${t.id}`) ?? null })),
  );
  const lists: CustomerListTable[] = records.flatMap((c) =>
    c.lists.map((l) => ({
      workspace_id: workspaceId,
      customer_id: c.id,
      list_id: l.id,
      status: l.status ?? 'active',
      added_at: ms(l.added_at),
      unsubscribed_at: ms(l.unsubscribed_at),
      added_by_key_id: listKeys.get(`${c.id}:${l.id}`) ?? null,
    })),
  );
  for (const [table, batch] of [['customer_tags', tags], ['customer_lists', lists]] as const) {
    if (batch.length === 0) continue;
    const per = engine.maxInsertRows(Object.keys(batch[0]!).length);
    for (let i = 0; i < batch.length; i += per) await db.insertInto(table).values(batch.slice(i, i + per) as never).execute();
  }
}
