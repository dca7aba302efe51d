import type { Engine } from '../db/dialects/types.ts';
import type { CustomerListTable, CustomerTable, CustomerTagTable, Queryable } from '../db/schema.ts';
import { canonicalJson } from '../http/idempotency.store.ts';
import { changeRow, type ChangeInput, type FieldMap } from '../resources/changes/change-log.repo.ts';
import type { ListLinkState, TagLinkState } from '../resources/customers/customer.write-repo.ts';
import type { Actor } from '../resources/customers/write-scope.ts';

/**
 * The import's entries in the change log (DECISIONS "Change log and undo"): one per
 * customer it creates, restores or updates, with the version the write gave it, so an
 * undo of a key's changes counts the import as a later change by someone else and never
 * reverts over it. Fields are named as every writer names them: columns, `tag:<id>` and
 * `list:<id>` (null: not a member).
 */
export const IMPORT_ACTOR: Actor = { kind: 'operator', id: 'import' };

const BATCH = 500;

export interface CustomerLinks {
  tags: Map<string, TagLinkState>;
  lists: Map<string, ListLinkState>;
}

export interface ImportedCustomer {
  /** The columns the import wrote. */
  row: Omit<CustomerTable, 'gender' | 'how_heard_about_us' | 'created_by_key_id'>;
  /** The version the upsert gave it. */
  version: number;
}

/** Not fields of the customer: its key and scope, and what every write moves on. */
const BOOKKEEPING = new Set(['id', 'workspace_id', 'livemode', 'version', 'updated_at']);

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
export async function holdCustomers(tx: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, CustomerTable>> {
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

const tagLink = (r: Pick<CustomerTagTable, 'added_at' | 'added_by_key_id'>): TagLinkState => ({ added_at: r.added_at, added_by_key_id: r.added_by_key_id });
const listLink = (r: ListLinkState): ListLinkState => ({
  status: r.status,
  added_at: r.added_at,
  unsubscribed_at: r.unsubscribed_at,
  added_by_key_id: r.added_by_key_id,
});

function group(tags: CustomerTagTable[], lists: CustomerListTable[]): Map<string, CustomerLinks> {
  const out = new Map<string, CustomerLinks>();
  const of = (id: string) => out.get(id) ?? out.set(id, { tags: new Map(), lists: new Map() }).get(id)!;
  for (const t of tags) of(t.customer_id).tags.set(t.tag_id, tagLink(t));
  for (const l of lists) of(l.customer_id).lists.set(l.list_id, listLink(l));
  return out;
}

/** The customers' tag and list memberships as they are now. */
export async function linksOf(tx: Queryable, workspaceId: string, ids: string[]): Promise<Map<string, CustomerLinks>> {
  const tags: CustomerTagTable[] = [];
  const lists: CustomerListTable[] = [];
  for (const part of chunks(ids)) {
    tags.push(...(await tx.selectFrom('customer_tags').selectAll().where('workspace_id', '=', workspaceId).where('customer_id', 'in', part).execute()));
    lists.push(...(await tx.selectFrom('customer_lists').selectAll().where('workspace_id', '=', workspaceId).where('customer_id', 'in', part).execute()));
  }
  return group(tags, lists);
}

/** Every field of the customer, memberships included, as the log names them. */
function fieldsOf(row: Record<string, unknown> | undefined, links: CustomerLinks | undefined, columns: string[]): FieldMap {
  const fields: FieldMap = {};
  for (const c of columns) fields[c] = row?.[c] ?? null;
  for (const [id, link] of links?.tags ?? []) fields[`tag:${id}`] = link;
  for (const [id, link] of links?.lists ?? []) fields[`list:${id}`] = link;
  return fields;
}

function changeOf(imported: ImportedCustomer, stored: CustomerTable | undefined, before: CustomerLinks | undefined, after: CustomerLinks | undefined): ChangeInput {
  const { row, version } = imported;
  const columns = Object.keys(row).filter((c) => !BOOKKEEPING.has(c));
  const now = fieldsOf(row, after, columns);
  if (!stored) return { action: 'customer.create', customerId: row.id, version, before: null, after: now };
  const was = fieldsOf(stored as unknown as Record<string, unknown>, before, columns);
  const changed: { before: FieldMap; after: FieldMap } = { before: {}, after: {} };
  for (const field of new Set([...Object.keys(was), ...Object.keys(now)])) {
    if (canonicalJson(was[field] ?? null) === canonicalJson(now[field] ?? null)) continue;
    changed.before[field] = was[field] ?? null;
    changed.after[field] = now[field] ?? null;
  }
  // A deleted customer the file names comes back: a restore touches the whole customer.
  const action = stored.deleted_at === null ? 'customer.update' : 'customer.restore';
  return { action, customerId: row.id, version, ...changed };
}

export async function logImportedCustomers(
  tx: Queryable,
  engine: Engine,
  context: { workspaceId: string; at: number },
  imported: ImportedCustomer[],
  stored: Map<string, CustomerTable>,
  linksBefore: Map<string, CustomerLinks>,
  written: { tags: CustomerTagTable[]; lists: CustomerListTable[] },
): Promise<void> {
  const linksAfter = group(written.tags, written.lists);
  const rows = imported.map((c) => {
    const scope = { workspaceId: context.workspaceId, livemode: c.row.livemode === 1, actor: IMPORT_ACTOR, requestId: null };
    return changeRow(scope, context.at, changeOf(c, stored.get(c.row.id), linksBefore.get(c.row.id), linksAfter.get(c.row.id)));
  });
  const per = engine.maxInsertRows(Object.keys(rows[0] ?? {}).length || 1);
  for (let i = 0; i < rows.length; i += per) await tx.insertInto('change_log').values(rows.slice(i, i + per)).execute();
}
