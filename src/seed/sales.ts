import type { DocRecord } from '../db/doc-rows.ts';
import { newId } from '../lib/ids.ts';
import { DAY_MS } from '../lib/time.ts';
import { upcomingDate } from './booking-plan.ts';
import type { SeedRun } from './context.ts';
import type { SeedCustomer } from './customers.ts';
import type { GiftCardPool } from './gift-cards.ts';
import { OrderDraft } from './money.ts';
import { orderRecord } from './orders.ts';
import { COUNTER_ITEMS } from './products.ts';
import { chance, int, minutes, pick } from './random.ts';
import { localParts } from './timeline.ts';

/**
 * Orders that are not bookings: event tickets (with their ticket records), gift cards
 * (with the card) and counter sales. Tickets and gift cards are live only (SPEC "Test data").
 */
export function sellTickets(
  run: SeedRun,
  buyer: SeedCustomer,
  orderAt: number,
  nextTicketAt: (candidate: number) => number,
) {
  const slot = upcomingDate(run.catalogue.events, orderAt);
  if (!slot) return null;
  const { event, date } = slot;
  const quantity = Math.max(event.minTickets, int(1, 4));
  const draft = new OrderDraft(run.profile.taxRate);
  const { localDate } = localParts(event.venue.timezone, date.scheduledAt);
  draft.line({
    name: `${event.name}, ${localDate}`,
    type: 'ticket',
    category: 'tickets',
    quantity,
    unitPrice: date.price,
  });
  const payAt = Math.min(run.now, orderAt + minutes(1, 3));
  draft.pay(draft.total, payAt);
  const refunded = chance(0.04);
  const refundAt = Math.min(
    run.now,
    payAt + Math.floor(Math.random() * Math.max(0, date.scheduledAt - payAt - DAY_MS)),
  );
  if (refunded) {
    draft.cancelLines();
    draft.refund(draft.paidIn, 'requested by customer', refundAt);
  }
  const orderId = newId('order');
  const tickets: DocRecord[] = [];
  for (let i = 0; i < quantity; i++) {
    const createdAt = nextTicketAt(orderAt + i);
    const past = date.scheduledAt < run.now;
    const checkedIn = !refunded && past && chance(0.85) ? date.scheduledAt - minutes(0, 40) : null;
    const status = refunded ? 'cancelled' : checkedIn !== null ? 'checked_in' : past ? 'no_show' : 'valid';
    tickets.push({
      id: newId('ticket'),
      created_at: createdAt,
      updated_at: refunded ? Math.max(createdAt, refundAt) : (checkedIn ?? createdAt),
      data: {
        event: event.id,
        event_date: date.id,
        order: orderId,
        customer: buyer.id,
        attendee_name: i === 0 ? buyer.name : run.profile.faker.person.fullName(),
        status,
        checked_in_at: checkedIn === null ? null : new Date(checkedIn).toISOString(),
      },
    });
  }
  const order = orderRecord(run, draft, {
    id: orderId,
    type: 'event',
    status: refunded ? 'refunded' : 'paid',
    venue: event.venue.id,
    customer: buyer,
    booking: null,
    event: event.id,
    discountCode: null,
    dueDate: null,
    createdAt: orderAt,
    updatedAt: refunded ? Math.max(orderAt, refundAt) : payAt,
    livemode: true,
  });
  return { order, tickets };
}

export function sellGiftCard(
  run: SeedRun,
  buyer: SeedCustomer,
  friend: SeedCustomer | null,
  orderAt: number,
  cardAt: number,
  pool: GiftCardPool,
): DocRecord {
  const value = Math.round((pick([5000, 10000, 10000, 15000, 20000, 25000]) * run.profile.priceFactor) / 500) * 500;
  const draft = new OrderDraft(run.profile.taxRate);
  // A gift card is money held, not a sale: no tax until it is spent.
  draft.line({
    name: 'Gift card',
    type: 'gift_card',
    category: 'gift_cards',
    quantity: 1,
    unitPrice: value,
    taxed: false,
  });
  const payAt = Math.min(run.now, orderAt + minutes(1, 3));
  draft.pay(draft.total, payAt, 'card');
  const orderId = newId('order');
  // Bought for themselves, for another customer, or for someone the venue doesn't know yet.
  const roll = Math.random();
  const holder = roll < 0.5 ? buyer.id : roll < 0.8 && friend ? friend.id : null;
  pool.issue({
    createdAt: cardAt,
    value,
    buyer: buyer.id,
    holder,
    recipientName: holder === null ? run.profile.faker.person.fullName() : null,
    orderId,
  });
  return orderRecord(run, draft, {
    id: orderId,
    type: 'gift_card',
    status: 'paid',
    venue: pick(run.catalogue.venues).id,
    customer: buyer,
    booking: null,
    event: null,
    discountCode: null,
    dueDate: null,
    createdAt: orderAt,
    updatedAt: payAt,
    livemode: true,
  });
}

/** A sale at the counter: food, drinks, arcade tokens; a walk-in has no customer record. */
export function sellAtCounter(
  run: SeedRun,
  customer: SeedCustomer | null,
  livemode: boolean,
  orderAt: number,
): DocRecord {
  const draft = new OrderDraft(run.profile.taxRate);
  for (let i = int(1, 3); i > 0; i--) {
    const [name, category, cents] = pick(COUNTER_ITEMS);
    draft.line({
      name,
      type: 'item',
      category,
      quantity: int(1, 3),
      unitPrice: Math.round((cents * run.profile.priceFactor) / 10) * 10,
    });
  }
  draft.pay(draft.total, orderAt, pick(['card', 'card', 'eftpos', 'cash']));
  return orderRecord(run, draft, {
    id: newId('order'),
    type: 'pos',
    status: 'paid',
    venue: pick(run.catalogue.venues).id,
    customer,
    booking: null,
    event: null,
    discountCode: null,
    dueDate: null,
    createdAt: orderAt,
    updatedAt: orderAt,
    livemode,
  });
}
