import type { Insertable } from 'kysely';
import type { Database } from './schema.ts';

/**
 * How a record of a doc collection becomes its table row (see schema.ts): every SPEC field
 * except id, object, livemode, created_at and updated_at goes into the `data` JSON, which
 * the read side spreads back between them; the filter columns are copied out of it. The
 * seeder and the importer both write through here, so the two can never disagree.
 */
export type DocTable =
  | 'venues'
  | 'activities'
  | 'packages'
  | 'events'
  | 'bookings'
  | 'orders'
  | 'tickets'
  | 'gift_cards';

/** A record in storage terms: instants as milliseconds, the rest as the API shows it. */
export interface DocRecord {
  id: string;
  created_at: number;
  updated_at: number;
  /** Only on the test-aware collections (bookings, orders). */
  livemode?: boolean;
  data: Record<string, unknown>;
}

export type DocRow<T extends DocTable> = Insertable<Database[T]>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const ms = (v: unknown): number | null => (typeof v === 'string' ? Date.parse(v) : null);
const bit = (v: boolean | undefined): number => (v ? 1 : 0);

/** The filter columns of each table, read from the record's data. */
const FILTER_COLUMNS: { [T in DocTable]: (rec: DocRecord) => Record<string, unknown> } = {
  venues: () => ({}),
  activities: () => ({}),
  packages: () => ({}),
  events: () => ({}),
  bookings: ({ data, livemode }) => ({
    livemode: bit(livemode),
    venue_id: str(data.venue),
    number: String(data.number),
    scheduled_at: ms(data.scheduled_at),
  }),
  orders: ({ data, livemode }) => ({
    livemode: bit(livemode),
    customer_id: str(data.customer),
    booking_id: str(data.booking),
    venue_id: str(data.venue),
    number: String(data.number),
  }),
  tickets: ({ data }) => ({ event_id: str(data.event), customer_id: str(data.customer), order_id: str(data.order) }),
  gift_cards: ({ data }) => ({ holder_id: str(data.holder), buyer_id: str(data.buyer) }),
};

export function toDocRow<T extends DocTable>(table: T, workspaceId: string, rec: DocRecord): DocRow<T> {
  return {
    id: rec.id,
    workspace_id: workspaceId,
    created_at: rec.created_at,
    updated_at: rec.updated_at,
    data: JSON.stringify(rec.data),
    ...FILTER_COLUMNS[table](rec),
  } as unknown as DocRow<T>;
}

/** The API record (as GET shows it) in storage terms: the inverse of the read side. */
export function fromApiRecord(record: Record<string, unknown>): DocRecord {
  const { id, object: _object, livemode, created_at, updated_at, ...data } = record;
  return {
    id: String(id),
    created_at: Date.parse(String(created_at)),
    updated_at: Date.parse(String(updated_at)),
    ...(typeof livemode === 'boolean' ? { livemode } : {}),
    data,
  };
}

/** Which filter columns a table has beyond the common ones, for upserts. */
export function filterColumnNames(table: DocTable): string[] {
  return Object.keys(FILTER_COLUMNS[table]({ id: '', created_at: 0, updated_at: 0, data: {} }));
}
