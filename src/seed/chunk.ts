import { setImmediate as yieldNow } from 'node:timers/promises';
import type { DocRecord } from '../db/doc-rows.ts';
import type { CustomerListTable, CustomerTable, CustomerTagTable } from '../db/tables/customer.ts';
import { sellBooking } from './booking-orders.ts';
import { planBooking } from './booking-plan.ts';
import { buildBlock } from './bookings.ts';
import type { SeedRun } from './context.ts';
import { buildCustomers, type SeedCustomer } from './customers.ts';
import { GiftCardPool } from './gift-cards.ts';
import { chance, int, weighted } from './random.ts';
import { sellAtCounter, sellGiftCard, sellTickets } from './sales.ts';

/**
 * One slice of a seed: a batch of customers who first appear in one stretch of time,
 * with everything they did in it. References stay inside the chunk (plus the catalogue),
 * so memory holds one chunk at a time however many customers are seeded.
 */
export interface ChunkRecords {
  customers: CustomerTable[];
  customer_tags: CustomerTagTable[];
  customer_lists: CustomerListTable[];
  bookings: DocRecord[];
  orders: DocRecord[];
  tickets: DocRecord[];
  gift_cards: DocRecord[];
}

type Kind = 'booking' | 'block' | 'tickets' | 'gift_card' | 'counter';

interface Plan {
  kind: Kind;
  customer: SeedCustomer | null;
  livemode: boolean;
  at: number;
  bookingAt: number;
  orderAt: number;
}

const between = (from: number, to: number) => from + Math.floor(Math.random() * Math.max(1, to - from));

/** A random customer (other than `not`) who already existed at `at`; `people` is oldest first. */
function someoneBefore(people: SeedCustomer[], at: number, not: SeedCustomer | null): SeedCustomer | null {
  let lo = 0;
  let hi = people.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (people[mid]!.createdAt <= at) lo = mid + 1;
    else hi = mid;
  }
  if (lo === 0) return null;
  const found = people[Math.floor(Math.random() * lo)]!;
  return found === not ? null : found;
}

function planChunk(people: SeedCustomer[], from: number, to: number): Plan[] {
  const plans: Plan[] = [];
  const add = (kind: Kind, customer: SeedCustomer | null, livemode: boolean, at: number) =>
    plans.push({ kind, customer, livemode, at, bookingAt: 0, orderAt: 0 });
  for (const c of people) {
    const bookings = Number(weighted({ 0: 48, 1: 36, 2: 12, 3: 4 }));
    // A customer record is usually made by their first booking, minutes before it is saved.
    for (let i = 0; i < bookings; i++)
      add('booking', c, c.livemode, i === 0 ? c.createdAt + int(5, 600) * 1000 : between(c.createdAt, to));
    if (c.livemode && chance(0.12)) add('tickets', c, true, between(c.createdAt, to));
    if (c.livemode && chance(0.04)) add('gift_card', c, true, between(c.createdAt, to));
    if (chance(0.08)) add('counter', c, c.livemode, between(c.createdAt, to));
  }
  for (let i = Math.round(people.length * 0.04); i > 0; i--) add('counter', null, !chance(0.1), between(from, to));
  for (let i = Math.round(people.length * 0.01); i > 0; i--) add('block', null, true, between(from, to));
  return plans;
}

/** Distinct, ordered instants: bookings first, then each order a moment after its booking. */
function timePlans(run: SeedRun, plans: Plan[]): Plan[] {
  const bookingLike = plans.filter((p) => p.kind === 'booking' || p.kind === 'block').sort((a, b) => a.at - b.at);
  for (const p of bookingLike) p.bookingAt = run.seq.bookings.next(p.at);
  const withOrders = plans.filter((p) => p.kind !== 'block');
  for (const p of withOrders) p.orderAt = p.kind === 'booking' ? p.bookingAt + int(1, 4000) : p.at;
  withOrders.sort((a, b) => a.orderAt - b.orderAt);
  for (const p of withOrders) p.orderAt = run.seq.orders.next(p.orderAt);
  return withOrders;
}

function party(plan: Plan, mates: SeedCustomer[], guests: number): SeedCustomer[] {
  const out = [plan.customer!];
  const extra = Math.min(guests - 1, Number(weighted({ 0: 60, 1: 25, 2: 15 })));
  for (let i = 0; i < extra; i++) {
    const mate = someoneBefore(mates, plan.bookingAt, plan.customer);
    if (mate && !out.includes(mate)) out.push(mate);
  }
  return out;
}

/**
 * Async only to let go of the thread now and then: the previous chunk's INSERTs then
 * progress on the database while this one is generated (PostgreSQL works in parallel).
 */
export async function buildChunk(run: SeedRun, n: number, from: number, to: number): Promise<ChunkRecords> {
  const people = buildCustomers(run, n, from, to);
  const byMode = { live: people.people.filter((p) => p.livemode), test: people.people.filter((p) => !p.livemode) };
  const plans = planChunk(people.people, from, to);
  const ordered = timePlans(run, plans);
  const out: ChunkRecords = {
    customers: people.rows,
    customer_tags: people.tags,
    customer_lists: people.lists,
    bookings: plans.filter((p) => p.kind === 'block').map((p) => buildBlock(run, p.bookingAt)),
    orders: [],
    tickets: [],
    gift_cards: [],
  };
  const pool = new GiftCardPool(run.now);
  let done = 0;
  for (const plan of ordered) {
    if (++done % 250 === 0) await yieldNow();
    const mates = plan.livemode ? byMode.live : byMode.test;
    if (plan.kind === 'booking') {
      const bp = planBooking(run, plan.bookingAt);
      const sold = sellBooking(run, bp, party(plan, mates, bp.adults + bp.juniors), plan, plan.livemode ? pool : null);
      out.bookings.push(sold.booking);
      out.orders.push(sold.order);
    } else if (plan.kind === 'gift_card') {
      const cardAt = run.seq.gift_cards.next(plan.orderAt + int(1, 1000));
      out.orders.push(
        sellGiftCard(
          run,
          plan.customer!,
          someoneBefore(mates, plan.orderAt, plan.customer),
          plan.orderAt,
          cardAt,
          pool,
        ),
      );
    } else {
      const sold =
        plan.kind === 'tickets' ? sellTickets(run, plan.customer!, plan.orderAt, (t) => run.seq.tickets.next(t)) : null;
      if (sold) {
        out.orders.push(sold.order);
        out.tickets.push(...sold.tickets);
      } else {
        // Nothing on sale then: they bought at the counter instead.
        out.orders.push(sellAtCounter(run, plan.customer, plan.livemode, plan.orderAt));
      }
    }
  }
  out.gift_cards = pool.records();
  return out;
}
