import type { Tx } from '../db/schema.ts';
import type { CustomerListTable, CustomerTable, CustomerTagTable } from '../db/tables/customer.ts';
import { sameJson } from '../lib/canonical-json.ts';
import type { ChangeAuthor, ChangeInput, CustomerRecords, FieldMap } from '../resources/changes/change.model.ts';
import { readCustomerJson } from '../resources/customers/customer-json.repo.ts';
import type { ListLinkState, TagLinkState } from '../resources/customers/membership.repo.ts';
import type { WritePipeline } from '../resources/writes/write.pipeline.ts';

/**
 * The import's entries in the change log (DECISIONS "Change log and undo"): one per
 * customer it creates, restores or updates, with the version the write gave it, so an
 * undo of a key's changes counts the import as a later change by someone else and never
 * reverts over it. Fields are named as every writer names them: columns, `tag:<id>` and
 * `list:<id>` (null: not a member).
 */
/** Who the log says made an import's changes. */
const IMPORT_OPERATOR = 'import';

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

const tagLink = (r: Pick<CustomerTagTable, 'added_at' | 'added_by_key_id'>): TagLinkState => ({
  added_at: r.added_at,
  added_by_key_id: r.added_by_key_id,
});
const listLink = (r: ListLinkState): ListLinkState => ({
  status: r.status,
  added_at: r.added_at,
  unsubscribed_at: r.unsubscribed_at,
  added_by_key_id: r.added_by_key_id,
});

export function group(tags: CustomerTagTable[], lists: CustomerListTable[]): Map<string, CustomerLinks> {
  const out = new Map<string, CustomerLinks>();
  const of = (id: string) => out.get(id) ?? out.set(id, { tags: new Map(), lists: new Map() }).get(id)!;
  for (const t of tags) of(t.customer_id).tags.set(t.tag_id, tagLink(t));
  for (const l of lists) of(l.customer_id).lists.set(l.list_id, listLink(l));
  return out;
}

/** Every field of the customer, memberships included, as the log names them. */
function fieldsOf(
  row: Record<string, unknown> | undefined,
  links: CustomerLinks | undefined,
  columns: string[],
): FieldMap {
  const fields: FieldMap = {};
  for (const c of columns) fields[c] = row?.[c] ?? null;
  for (const [id, link] of links?.tags ?? []) fields[`tag:${id}`] = link;
  for (const [id, link] of links?.lists ?? []) fields[`list:${id}`] = link;
  return fields;
}

function changeOf(
  at: number,
  imported: ImportedCustomer,
  stored: CustomerTable | undefined,
  before: CustomerLinks | undefined,
  after: CustomerLinks | undefined,
): ChangeInput {
  const { row, version } = imported;
  const columns = Object.keys(row).filter((c) => !BOOKKEEPING.has(c));
  const now = fieldsOf(row, after, columns);
  if (!stored) return { at, action: 'customer.create', customerId: row.id, version, before: null, after: now };
  const was = fieldsOf(stored as unknown as Record<string, unknown>, before, columns);
  const changed: { before: FieldMap; after: FieldMap } = { before: {}, after: {} };
  for (const field of new Set([...Object.keys(was), ...Object.keys(now)])) {
    if (sameJson(was[field], now[field])) continue;
    changed.before[field] = was[field] ?? null;
    changed.after[field] = now[field] ?? null;
  }
  // A deleted customer the file names comes back: a restore touches the whole customer.
  const action = stored.deleted_at === null ? 'customer.update' : 'customer.restore';
  return { at, action, customerId: row.id, version, ...changed };
}

/**
 * The customers a batch replaces, as GET showed them before it writes (the API's read path,
 * in the batch's transaction): an update's event compares them with after.
 */
export async function recordsBefore(
  tx: Tx,
  context: { workspaceId: string; at: number },
  stored: Map<string, CustomerTable>,
): Promise<CustomerRecords> {
  const records = new Map<string, { before: string }>();
  for (const row of stored.values()) {
    const reader = { workspaceId: context.workspaceId, livemode: row.livemode === 1, clock: () => context.at };
    // A deleted customer has none: the import restores it (customer.created).
    const shown = await readCustomerJson(tx, reader, row.id);
    if (shown) records.set(row.id, { before: shown.record });
  }
  return records;
}

/**
 * The change-log rows of an import's customers, through the write pipeline as every customer
 * writer's, so they send their webhook events too (DECISIONS "Webhooks"); one call per mode.
 */
export async function logImportedCustomers(
  tx: Tx,
  writes: WritePipeline,
  context: { workspaceId: string; at: number },
  imported: ImportedCustomer[],
  stored: Map<string, CustomerTable>,
  linksBefore: Map<string, CustomerLinks>,
  written: { tags: CustomerTagTable[]; lists: CustomerListTable[] },
  before: CustomerRecords,
): Promise<void> {
  const linksAfter = group(written.tags, written.lists);
  for (const livemode of [false, true]) {
    const ofMode = imported.filter((c) => (c.row.livemode === 1) === livemode);
    if (ofMode.length === 0) continue;
    const changes = ofMode.map((c) =>
      changeOf(context.at, c, stored.get(c.row.id), linksBefore.get(c.row.id), linksAfter.get(c.row.id)),
    );
    const author: ChangeAuthor = {
      kind: 'operator',
      id: IMPORT_OPERATOR,
      workspaceId: context.workspaceId,
      livemode,
      requestId: null,
    };
    await writes.logChanges(tx, author, changes, before);
  }
}
