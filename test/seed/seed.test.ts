import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/schema.ts';
import { seedWorkspace, type SeedCounts } from '../../src/seed/seed.service.ts';
import { makeTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/storage.ts';
import { membershipCountDrift } from '../helpers/membership-counts.ts';

/** What `venue-api seed` promises (DECISIONS "Operator CLI"): every collection, consistent. */
type Doc = { id: string; created_at: number; updated_at: number; livemode?: number; data: any };

async function docs(
  db: Db,
  table: 'venues' | 'activities' | 'packages' | 'events' | 'bookings' | 'orders' | 'tickets' | 'gift_cards',
  workspaceId: string,
): Promise<Doc[]> {
  const rows = await db.selectFrom(table).selectAll().where('workspace_id', '=', workspaceId).execute();
  return rows.map((r) => ({ ...r, data: JSON.parse(r.data) }));
}

const DOC_TABLES = [
  'venues',
  'activities',
  'packages',
  'events',
  'bookings',
  'orders',
  'tickets',
  'gift_cards',
] as const;

describe.each(ENGINES)('seed on %s', (engine) => {
  let t: TestApp;
  let counts: SeedCounts;
  const all: Record<string, Doc[]> = {};
  let customers: Map<string, number>;
  /** The seed's "now": statuses are judged against it, not against a later real clock. */
  let seededAt: number;

  beforeAll(async () => {
    t = await makeTestApp(engine);
    seededAt = t.clock.now;
    // Small chunks, so references and clocks are exercised across chunk boundaries.
    counts = await seedWorkspace(t.storage, {
      workspaceId: t.workspaceId,
      customers: 400,
      chunkSize: 150,
      now: seededAt,
    });
    for (const table of DOC_TABLES) all[table] = await docs(t.storage.db, table, t.workspaceId);
    const rows = await t.storage.db
      .selectFrom('customers')
      .select(['id', 'livemode'])
      .where('workspace_id', '=', t.workspaceId)
      .execute();
    customers = new Map(rows.map((r) => [r.id, r.livemode]));
  });
  afterAll(async () => t?.close());

  it('fills every collection and reports what it wrote', async () => {
    for (const table of DOC_TABLES) expect(all[table]!.length, table).toBeGreaterThan(0);
    for (const [name, n] of Object.entries(counts)) expect(n, name).toBeGreaterThan(0);
    expect(counts.customers).toBe(400);
    expect(customers.size).toBe(400);
    expect(all.bookings!.length).toBe(counts.bookings);
    expect(all.orders!.length).toBe(counts.orders);
    const tagLinks = await t.storage.db
      .selectFrom('customer_tags')
      .select('tag_id')
      .where('workspace_id', '=', t.workspaceId)
      .execute();
    expect(tagLinks.length).toBe(counts.tag_memberships);
  });

  it('makes live and test rows of customers, bookings and orders', () => {
    expect(new Set(customers.values())).toEqual(new Set([0, 1]));
    for (const table of ['bookings', 'orders'] as const) {
      expect(new Set(all[table]!.map((r) => r.livemode)), table).toEqual(new Set([0, 1]));
    }
  });

  it('gives each table distinct created_at values, never after updated_at or now', () => {
    for (const table of DOC_TABLES) {
      const stamps = all[table]!.map((r) => r.created_at);
      expect(new Set(stamps).size, table).toBe(stamps.length);
      for (const r of all[table]!) {
        expect(r.updated_at, table).toBeGreaterThanOrEqual(r.created_at);
        expect(r.updated_at, table).toBeLessThanOrEqual(seededAt);
      }
    }
  });

  it('points every booking at its venue, customers of its own mode and real products', () => {
    const venues = new Set(all.venues!.map((v) => v.id));
    const products = new Set([...all.activities!, ...all.packages!, ...all.events!].map((p) => p.id));
    for (const b of all.bookings!) {
      expect(venues.has(b.data.venue)).toBe(true);
      expect(b.data.timezone).toBe(all.venues!.find((v) => v.id === b.data.venue)!.data.timezone);
      for (const p of b.data.people) expect(customers.get(p.customer)).toBe(b.livemode);
      for (const l of b.data.lines) expect(products.has(l.product.id)).toBe(true);
      if (!b.data.blocked) expect(b.data.people.filter((p: any) => p.primary)).toHaveLength(1);
    }
  });

  it('gives bookings statuses that agree with the clock and their venue-local times', () => {
    const now = seededAt;
    for (const b of all.bookings!) {
      const d = b.data;
      const at = Date.parse(d.scheduled_at);
      const local = new Intl.DateTimeFormat('sv-SE', {
        timeZone: d.timezone,
        dateStyle: 'short',
        timeStyle: 'short',
      }).format(at);
      expect(local).toBe(`${d.local_date} ${d.local_time}`);
      if (d.blocked) continue;
      if (d.status.type === 'hold') expect(Date.parse(d.hold_expires_at)).toBeGreaterThan(now);
      if (d.status.type === 'expired') expect(Date.parse(d.hold_expires_at)).toBeLessThan(now);
      if (d.status.type === 'completed') {
        expect(at).toBeLessThan(now);
        expect(d.checked_in_at).not.toBeNull();
      }
      if (d.status.type === 'active') expect(at).toBeGreaterThan(b.created_at);
    }
  });

  it('points orders at customers, bookings, venues and events that exist, in the same mode', () => {
    const bookings = new Map(all.bookings!.map((b) => [b.id, b.livemode]));
    const venues = new Set(all.venues!.map((v) => v.id));
    const events = new Set(all.events!.map((e) => e.id));
    for (const o of all.orders!) {
      if (o.data.customer !== null) expect(customers.get(o.data.customer)).toBe(o.livemode);
      if (o.data.booking !== null) expect(bookings.get(o.data.booking)).toBe(o.livemode);
      if (o.data.event !== null) expect(events.has(o.data.event)).toBe(true);
      expect(venues.has(o.data.venue)).toBe(true);
    }
  });

  it('adds up the money on every order', () => {
    for (const o of all.orders!) {
      const d = o.data;
      const gross = d.lines.reduce((s: number, l: any) => s + l.quantity * l.unit_price, 0);
      for (const l of d.lines) expect(l.total).toBe(l.quantity * l.unit_price - l.discount);
      expect(d.subtotal).toBe(gross);
      expect(d.discount).toBe(d.lines.reduce((s: number, l: any) => s + l.discount, 0));
      expect(d.total).toBe(d.subtotal - d.discount - d.gift_card - d.store_credit);
      const ok = (xs: any[]) => xs.filter((x) => x.status === 'succeeded').reduce((s, x) => s + x.amount, 0);
      expect(d.amount_refunded).toBe(ok(d.refunds));
      expect(d.amount_paid).toBe(ok(d.payments) - d.amount_refunded);
      expect(d.amount_due).toBe(d.total - d.amount_paid);
      expect(d.amount_due).toBeGreaterThanOrEqual(0);
    }
  });

  it('points tickets at their event, a date of that event, a live order and a live customer', () => {
    const events = new Map(all.events!.map((e) => [e.id, new Set(e.data.dates.map((d: any) => d.id))]));
    const orders = new Map(all.orders!.map((o) => [o.id, o]));
    for (const tk of all.tickets!) {
      expect(events.get(tk.data.event)?.has(tk.data.event_date)).toBe(true);
      expect(orders.get(tk.data.order)?.livemode).toBe(1);
      expect(orders.get(tk.data.order)?.data.event).toBe(tk.data.event);
      expect(customers.get(tk.data.customer)).toBe(1);
    }
  });

  it('keeps gift card balances equal to the last movement and the sum of movements', () => {
    const orders = new Map(all.orders!.map((o) => [o.id, o]));
    for (const g of all.gift_cards!) {
      const moves = g.data.movements;
      expect(moves.length).toBeGreaterThan(0);
      expect(g.data.balance).toBe(moves[moves.length - 1].balance_after);
      expect(g.data.balance).toBe(moves.reduce((s: number, m: any) => s + m.amount, 0));
      for (const m of moves) if (m.order !== null) expect(orders.get(m.order)?.livemode).toBe(1);
      expect(customers.get(g.data.buyer)).toBe(1);
      if (g.data.holder !== null) expect(customers.get(g.data.holder)).toBe(1);
      const sorted = [...moves].sort((a: any, b: any) => a.created_at.localeCompare(b.created_at));
      expect(sorted).toEqual(moves);
    }
  });

  it('serves every collection through the API, for live and test keys', async () => {
    const paths = [
      '/venues',
      '/activities',
      '/packages',
      '/events',
      '/tags',
      '/lists',
      '/customers',
      '/bookings',
      '/orders',
      '/tickets',
      '/gift-cards',
    ];
    for (const path of paths) {
      // The test app checks each answer against the published OpenAPI schemas.
      const live = await t.call(t.keys.live, { method: 'GET', url: `${path}?limit=100` });
      expect(live.statusCode, path).toBe(200);
      expect(live.json().data.length, path).toBeGreaterThan(0);
    }
    const testCustomers = await t.call(t.keys.test, { method: 'GET', url: '/customers?limit=100' });
    expect(testCustomers.json().data.every((c: any) => c.livemode === false)).toBe(true);
    const testBookings = await t.call(t.keys.test, { method: 'GET', url: '/bookings?limit=5' });
    expect(testBookings.json().data.length).toBeGreaterThan(0);
  });

  it('seeds again without clashing: more data, emails still unique', async () => {
    const again = await seedWorkspace(t.storage, { workspaceId: t.workspaceId, customers: 150 });
    expect(again.customers).toBe(150);
    const rows = await t.storage.db
      .selectFrom('customers')
      .select(['email', 'livemode'])
      .where('workspace_id', '=', t.workspaceId)
      .execute();
    expect(rows).toHaveLength(550);
    const emails = rows.filter((r) => r.email !== null).map((r) => `${r.livemode}:${r.email}`);
    expect(new Set(emails).size).toBe(emails.length);
    // New venues stay in the workspace's country (its first venue's, DECISIONS "Customers").
    const venues = await docs(t.storage.db, 'venues', t.workspaceId);
    expect(venues.length).toBeGreaterThan(all.venues!.length);
    expect(new Set(venues.map((v) => v.data.address.country)).size).toBe(1);
    // Tags and lists of the same name are reused, not repeated.
    const tags = await t.storage.db
      .selectFrom('tags')
      .select('name')
      .where('workspace_id', '=', t.workspaceId)
      .execute();
    expect(new Set(tags.map((r) => r.name)).size).toBe(tags.length);
  });

  it('refuses a workspace that does not exist', async () => {
    await expect(
      seedWorkspace(t.storage, { workspaceId: 'wsp_0000000000000000000000', customers: 5 }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it("leaves every customer's tag and list counts true (migration 007's triggers)", async () => {
    expect(await membershipCountDrift(t.storage.db)).toEqual([]);
  });
});
