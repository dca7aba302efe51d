import { toInstant } from '../../lib/time.ts';
import type { ChangeInput, FieldMap } from '../changes/change.model.ts';

/**
 * A customer's changes in one write, as the webhook event they make (DECISIONS "Webhooks"):
 * its type, and for an update the earlier values of the record's changed top-level fields,
 * worked out from the change log's before-values (columns, `tag:<id>`, `list:<id>`) and
 * the record as it is now.
 */
export type CustomerEventType = 'customer.created' | 'customer.updated' | 'customer.deleted';

export const CUSTOMER_EVENT_TYPES: readonly CustomerEventType[] = [
  'customer.created',
  'customer.updated',
  'customer.deleted',
];

export function customerEventType(changes: readonly ChangeInput[]): CustomerEventType {
  const actions = changes.map((c) => c.action);
  if (actions.includes('customer.delete')) return 'customer.deleted';
  // A restore brings back a customer receivers were told is gone.
  if (actions.includes('customer.create') || actions.includes('customer.restore')) return 'customer.created';
  return 'customer.updated';
}

/** Each field's value before the first of the changes (a write may change one field twice). */
export function earliestBefore(changes: readonly ChangeInput[]): FieldMap {
  const before: FieldMap = {};
  for (const change of changes)
    for (const [field, value] of Object.entries(change.before ?? {})) if (!(field in before)) before[field] = value;
  return before;
}

const SAME_NAME = new Set(['first_name', 'last_name', 'nickname', 'email', 'phone', 'date_of_birth', 'company']);
const ADDRESS = /^address_(line1|line2|suburb|state|postcode|country)$/;

interface TagItem {
  id: string;
  name?: string;
  added_at: string | null;
}
interface ListItem extends TagItem {
  status?: string;
  unsubscribed_at?: string | null;
}

type Link = { added_at?: number | null; status?: string; unsubscribed_at?: number | null } | null;

/**
 * `previous_attributes`: the record's top-level fields that changed, with their earlier
 * values. A membership removed is put back with the name `names` gives its tag or list.
 */
export function previousAttributes(
  record: Record<string, unknown>,
  before: FieldMap,
  names: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(before)) {
    const address = ADDRESS.exec(field);
    if (SAME_NAME.has(field)) previous[field] = value;
    else if (field === 'marketing_consent') previous[field] = value === 1 || value === true;
    else if (field === 'adult' && !('date_of_birth' in before)) previous[field] = value === null ? null : value === 1;
    else if (address) {
      const was = (previous.address ?? { ...(record.address as object) }) as Record<string, unknown>;
      was[address[1]!] = value;
      previous.address = was;
    } else if (field === 'member' || field === 'member_tier') {
      const was = (previous.membership ?? { ...(record.membership as object) }) as Record<string, unknown>;
      if (field === 'member') was.member = value === 1 || value === true;
      else was.tier = value;
      previous.membership = was;
    } else if (field.startsWith('tag:') || field.startsWith('list:')) {
      const [kind, id] = field.split(':') as ['tag' | 'list', string];
      const key = kind === 'tag' ? 'tags' : 'lists';
      const items = (previous[key] ?? [...(record[key] as ListItem[])]) as ListItem[];
      const rest = items.filter((i) => i.id !== id);
      const link = value as Link;
      if (link !== null) rest.push(restored(kind, id, link, names));
      previous[key] = rest;
    }
  }
  return previous;
}

function restored(kind: 'tag' | 'list', id: string, link: NonNullable<Link>, names: ReadonlyMap<string, string>) {
  const item: ListItem = { id, name: names.get(id) ?? '', added_at: toInstant(link.added_at ?? null) };
  if (kind === 'list') {
    item.status = link.status ?? 'active';
    item.unsubscribed_at = toInstant(link.unsubscribed_at ?? null);
  }
  return item;
}

/** The tags and lists whose memberships the changes removed (their names are looked up). */
export function removedMemberships(before: FieldMap): { tags: string[]; lists: string[] } {
  const tags: string[] = [];
  const lists: string[] = [];
  for (const [field, value] of Object.entries(before)) {
    if (value === null) continue;
    if (field.startsWith('tag:')) tags.push(field.slice(4));
    else if (field.startsWith('list:')) lists.push(field.slice(5));
  }
  return { tags, lists };
}
