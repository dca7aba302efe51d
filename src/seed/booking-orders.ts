import type { DocRecord } from '../db/doc-rows.ts';
import { newId } from '../lib/ids.ts';
import { DAY_MS } from '../lib/time.ts';
import type { BookingPlan } from './booking-plan.ts';
import { buildBooking, checkInTime } from './bookings.ts';
import type { SeedRun } from './context.ts';
import type { SeedCustomer } from './customers.ts';
import type { GiftCardPool } from './gift-cards.ts';
import { OrderDraft } from './money.ts';
import { orderRecord } from './orders.ts';
import { COUNTER_ITEMS } from './products.ts';
import { chance, int, minutes, pick } from './random.ts';
import { isPeak } from './timeline.ts';

/** A booking and the order that carries its money, told as one story (SPEC "Booking", "Order"). */
const DISCOUNT_CODES: Array<[string, number]> = [
  ['WELCOME10', 0.1],
  ['MIDWEEK20', 0.2],
  ['BIRTHDAY15', 0.15],
];

type LineInput = Parameters<OrderDraft['line']>[0];

function productLines(plan: BookingPlan): LineInput[] {
  if (plan.event) {
    const { event, date } = plan.event;
    return [
      {
        name: `${event.name} (group table)`,
        type: 'ticket',
        category: 'tickets',
        quantity: plan.adults + plan.juniors,
        unitPrice: date.price,
      },
    ];
  }
  const p = plan.product!;
  const prices = p.peak && isPeak(plan.venue.timezone, plan.scheduledAt) ? p.peak : p.prices;
  const line = (name: string, quantity: number, unitPrice: number | null): LineInput => ({
    name,
    type: p.object,
    category: p.object === 'package' ? 'packages' : 'activities',
    quantity,
    unitPrice: unitPrice ?? 0,
  });
  const lines: LineInput[] = [];
  if (p.pricing === 'flat_rate') lines.push(line(p.name, 1, prices.flat_rate));
  else {
    lines.push(line(`${p.name}: adult`, plan.adults, prices.adult));
    if (plan.juniors > 0) lines.push(line(`${p.name}: junior`, plan.juniors, prices.junior));
  }
  if (prices.base) lines.push(line(`${p.name}: base`, 1, prices.base));
  return lines;
}

function extras(factor: number): LineInput[] {
  if (!chance(0.35)) return [];
  return Array.from({ length: int(1, 2) }, () => {
    const [name, category, cents] = pick(COUNTER_ITEMS);
    return { name, type: 'extra', category, quantity: int(1, 4), unitPrice: Math.round((cents * factor) / 10) * 10 };
  });
}

/** The booking's lines, with a promotion code taken off the first one now and then. */
function priceBooking(draft: OrderDraft, plan: BookingPlan, factor: number): string | null {
  const lines = [...productLines(plan), ...extras(factor)];
  const promo = chance(0.12) ? pick(DISCOUNT_CODES) : null;
  if (promo) lines[0]!.discount = Math.round(lines[0]!.quantity * lines[0]!.unitPrice * promo[1]);
  for (const l of lines) draft.line(l);
  return promo ? promo[0] : null;
}

interface Settled {
  status: string;
  dueDate: number | null;
  checkedIn: number | null;
  /** The last thing that happened to the booking and its order. */
  lastChange: number;
}

/** How the booking's money went, by how the booking ended (see booking-plan.ts). */
function settle(draft: OrderDraft, plan: BookingPlan, orderAt: number, now: number): Settled {
  const payAt = Math.min(now, orderAt + minutes(1, 5));
  const settled: Settled = { status: 'paid', dueDate: null, checkedIn: null, lastChange: payAt };
  switch (plan.status) {
    case 'completed': {
      const checkedIn = checkInTime(plan);
      // Some paid a deposit online and the rest on arrival.
      const deposit = chance(0.3) ? Math.round(draft.total * 0.3) : draft.total;
      draft.pay(deposit, payAt);
      draft.pay(draft.total - deposit, checkedIn);
      Object.assign(settled, { checkedIn, lastChange: checkedIn });
      if (chance(0.03) && draft.total > 2000) {
        const goodwillAt = Math.min(now, plan.scheduledAt + int(1, 3) * DAY_MS);
        draft.line({ name: 'Goodwill credit', type: 'adjustment', category: 'refund', quantity: 1, unitPrice: -2000 });
        draft.refund(2000, 'goodwill', goodwillAt);
        settled.lastChange = goodwillAt;
      }
      return settled;
    }
    case 'active': {
      const rule = plan.product?.deposit;
      const deposit =
        rule?.type === 'fixed' && rule.value
          ? Math.min(rule.value, draft.total)
          : Math.round(draft.total * (rule?.type === 'percent' && rule.value ? rule.value / 100 : 0.25));
      if (chance(0.55) || deposit >= draft.total) {
        draft.pay(draft.total, payAt);
        return settled;
      }
      draft.pay(deposit, payAt);
      return { ...settled, status: 'partially_paid', dueDate: Math.max(orderAt, plan.scheduledAt - 2 * DAY_MS) };
    }
    case 'hold':
      return { ...settled, status: 'unpaid', dueDate: plan.holdDeadline, lastChange: orderAt };
    case 'expired':
      draft.cancelLines();
      return { ...settled, status: 'void', lastChange: plan.holdDeadline };
    case 'cancelled': {
      const cancelAt = orderAt + Math.floor(Math.random() * (Math.min(plan.scheduledAt, now) - orderAt));
      const paid = chance(0.7) && payAt < cancelAt;
      if (paid) draft.pay(draft.total, payAt);
      draft.cancelLines();
      draft.refund(draft.paidIn, 'cancelled by customer', cancelAt);
      return { ...settled, status: paid ? 'refunded' : 'cancelled', lastChange: Math.max(cancelAt, orderAt) };
    }
  }
}

export function sellBooking(
  run: SeedRun,
  plan: BookingPlan,
  party: SeedCustomer[],
  times: { bookingAt: number; orderAt: number },
  giftCards: GiftCardPool | null,
): { booking: DocRecord; order: DocRecord } {
  const draft = new OrderDraft(run.profile.taxRate);
  const discountCode = priceBooking(draft, plan, run.profile.priceFactor);
  const orderId = newId('order');
  const bookingId = newId('booking');
  if (plan.status === 'active' || plan.status === 'completed') {
    if (giftCards && chance(0.08)) draft.giftCard = giftCards.redeem(times.orderAt, draft.total, orderId, bookingId);
    if (chance(0.03)) draft.storeCredit = Math.min(draft.total, int(5, 20) * 100);
  }
  const settled = settle(draft, plan, times.orderAt, run.now);
  const livemode = party[0]!.livemode;
  const updatedAt = Math.max(times.orderAt, settled.lastChange);
  const booking = buildBooking(
    run,
    plan,
    party,
    { id: bookingId, createdAt: times.bookingAt, updatedAt, checkedIn: settled.checkedIn },
    livemode,
  );
  const order = orderRecord(run, draft, {
    id: orderId,
    type: 'booking',
    status: settled.status,
    venue: plan.venue.id,
    customer: party[0]!,
    booking: bookingId,
    event: plan.event?.event.id ?? null,
    discountCode,
    dueDate: settled.dueDate,
    createdAt: times.orderAt,
    updatedAt,
    livemode,
  });
  return { booking, order };
}
