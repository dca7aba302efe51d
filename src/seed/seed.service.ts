import type { Engine } from '../db/dialects/types.ts';
import type { Storage } from '../db/index.ts';
import type { Queryable, Tx } from '../db/schema.ts';
import { invalid } from '../errors.ts';
import { randomBase62 } from '../lib/ids.ts';
import { countryCode } from '../resources/customers/phone.model.ts';
import { firstVenueCountry } from '../resources/venues/venue.repo.ts';
import { getWorkspace } from '../resources/workspaces/workspace.service.ts';
import { buildCatalogue, type ExistingCatalogue } from './catalogue.ts';
import { buildChunk, type ChunkRecords } from './chunk.ts';
import { newSequences, type SeedRun } from './context.ts';
import { profileFor } from './profiles.ts';
import { HOUR_MS, SEED_SPAN_MS } from './timeline.ts';
import { insertMany } from '../db/insert-many.ts';
import { insertDocs, readCatalogue } from './seed.repo.ts';

/**
 * `venue-api seed`: realistic, consistent data in every collection of a workspace
 * (DECISIONS "Operator CLI"), live and test where a collection has both. Seeding again
 * adds more (new venues and products, more customers with fresh emails); tags and lists
 * of the same name are reused.
 */
export interface SeedOptions {
  workspaceId: string;
  customers: number;
  now?: number;
  /** Customers per chunk: memory holds about two chunks, however many are seeded. */
  chunkSize?: number;
  onProgress?: (customersDone: number, customersTotal: number) => void;
}

export interface SeedCounts {
  venues: number;
  activities: number;
  packages: number;
  events: number;
  tags: number;
  lists: number;
  customers: number;
  tag_memberships: number;
  list_memberships: number;
  bookings: number;
  orders: number;
  tickets: number;
  gift_cards: number;
}

const MAX_SEED_CUSTOMERS = 10_000_000;
/**
 * Customers (with their bookings, orders, tickets and gift cards) written per transaction:
 * large enough that a page of each index is written a few times per commit, small enough
 * that the write lock is held for well under a second (docs/operations.md "A busy SQLite file").
 */
const CUSTOMERS_PER_TRANSACTION = 1_000;

async function existingCatalogue(
  db: Queryable,
  workspaceId: string,
): Promise<ExistingCatalogue & { bookings: number; orders: number }> {
  const { docs, tags, lists, bookings, orders } = await readCatalogue(db, workspaceId);
  const slugs = (rows: Array<{ slug?: string }>) => rows.map((r) => r.slug ?? '').filter(Boolean);
  return {
    tags: new Map(tags.map((t) => [t.name, t.id])),
    lists: new Map(lists.map((l) => [l.name, l.id])),
    slugs: {
      venues: slugs(docs.venues),
      activities: slugs(docs.activities),
      packages: slugs(docs.packages),
      events: slugs(docs.events),
      lists: lists.map((l) => l.slug),
    },
    bookings,
    orders,
  };
}

export async function seedWorkspace(storage: Storage, options: SeedOptions): Promise<SeedCounts> {
  const { db, engine } = storage;
  const total = options.customers;
  if (!Number.isSafeInteger(total) || total < 1 || total > MAX_SEED_CUSTOMERS) {
    throw invalid(`customers must be a whole number from 1 to ${MAX_SEED_CUSTOMERS}`);
  }
  const { id: workspaceId } = await getWorkspace(db, options.workspaceId);
  const now = options.now ?? Date.now();
  // Everything happened at least an hour ago, so every follow-up (payments, check-ins) fits before now.
  const end = now - HOUR_MS;
  const from = end - SEED_SPAN_MS;
  const existing = await existingCatalogue(db, workspaceId);
  // DECISIONS "Customers": the first venue's country is the workspace's phone country,
  // so a workspace seeded again stays in the country it is in.
  const profile = profileFor(countryCode(await firstVenueCountry(db, workspaceId)));
  const seq = newSequences();
  const cat = buildCatalogue(workspaceId, profile, existing, seq.catalogue, from, now);
  const run: SeedRun = {
    workspaceId,
    now,
    profile,
    catalogue: cat.catalogue,
    seq,
    emailTag: randomBase62(6).toLowerCase(),
    counters: { booking: 100_001 + existing.bookings, order: 500_001 + existing.orders, email: 0 },
  };
  const counts: SeedCounts = {
    venues: cat.docs.venues.length,
    activities: cat.docs.activities.length,
    packages: cat.docs.packages.length,
    events: cat.docs.events.length,
    tags: cat.tags.length,
    lists: cat.lists.length,
    customers: 0,
    tag_memberships: 0,
    list_memberships: 0,
    bookings: 0,
    orders: 0,
    tickets: 0,
    gift_cards: 0,
  };
  await storage.write(async (tx) => {
    for (const table of ['venues', 'activities', 'packages', 'events'] as const) {
      await insertDocs(tx, engine, table, workspaceId, cat.docs[table]);
    }
    await insertMany(tx, engine, 'tags', cat.tags);
    await insertMany(tx, engine, 'lists', cat.lists);
  });

  const chunkSize = Math.max(1, options.chunkSize ?? CUSTOMERS_PER_TRANSACTION);
  const chunks = Math.ceil(total / chunkSize);
  const windowMs = SEED_SPAN_MS / chunks;
  options.onProgress?.(0, total);
  for (let c = 0; c < chunks; c++) {
    // Generated before its transaction, written in one of its own: SQLite's write lock is
    // held only while rows are written, a fraction of a second, so a server on the same
    // file gets its turns between chunks instead of 503s for the whole seed.
    const rows = await buildChunk(
      run,
      Math.min(chunkSize, total - c * chunkSize),
      from + c * windowMs,
      from + (c + 1) * windowMs,
    );
    await storage.write((tx) => writeChunk(tx, engine, workspaceId, rows));
    tally(counts, rows);
    options.onProgress?.(counts.customers, total);
  }
  // A bulk load changes the tables' shape: give the planner fresh statistics now.
  await engine.refreshStatistics(db);
  return counts;
}

async function writeChunk(tx: Tx, engine: Engine, workspaceId: string, rows: ChunkRecords): Promise<void> {
  // On PostgreSQL the counts go with the row and the triggers stand aside (migration 010):
  // counting after the fact updated every customer a second time.
  const counted = await engine.pauseMembershipCounts(tx);
  await insertMany(tx, engine, 'customers', counted ? withMembershipCounts(rows) : rows.customers);
  await insertMany(tx, engine, 'customer_tags', rows.customer_tags);
  await insertMany(tx, engine, 'customer_lists', rows.customer_lists);
  for (const table of ['bookings', 'orders', 'tickets', 'gift_cards'] as const) {
    await insertDocs(tx, engine, table, workspaceId, rows[table]);
  }
}

function withMembershipCounts(rows: ChunkRecords): ChunkRecords['customers'] {
  const tags = new Map<string, number>();
  const lists = new Map<string, number>();
  for (const t of rows.customer_tags) tags.set(t.customer_id, (tags.get(t.customer_id) ?? 0) + 1);
  for (const l of rows.customer_lists) lists.set(l.customer_id, (lists.get(l.customer_id) ?? 0) + 1);
  return rows.customers.map((c) => ({ ...c, tag_count: tags.get(c.id) ?? 0, list_count: lists.get(c.id) ?? 0 }));
}

function tally(counts: SeedCounts, rows: ChunkRecords): void {
  counts.customers += rows.customers.length;
  counts.tag_memberships += rows.customer_tags.length;
  counts.list_memberships += rows.customer_lists.length;
  counts.bookings += rows.bookings.length;
  counts.orders += rows.orders.length;
  counts.tickets += rows.tickets.length;
  counts.gift_cards += rows.gift_cards.length;
}

/** Rows a seed wrote, all tables together: the figure its speed is measured in. */
export function rowsWritten(counts: SeedCounts): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}
