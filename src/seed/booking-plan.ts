import { DAY_MS } from '../lib/time.ts';
import type { SeedEvent, SeedEventDate, SeedProduct, SeedRun, SeedVenue } from './context.ts';
import { chance, int, pick, weighted } from './random.ts';
import { atLocalTime, HOUR_MS } from './timeline.ts';

/**
 * What a booking is for, where, when and how it ended: decided before any record is
 * written, so the booking, its order and its money all tell the same story.
 * Status follows time (SPEC "States"): a hold lapses a day before its start (or an hour
 * after it was made), so `hold` is only ever in the future and `expired` only in the past.
 */
export type BookingStatus = 'active' | 'completed' | 'cancelled' | 'hold' | 'expired';

export interface BookingPlan {
  venue: SeedVenue;
  product: SeedProduct | null;
  event: { event: SeedEvent; date: SeedEventDate } | null;
  scheduledAt: number;
  minutes: number;
  adults: number;
  juniors: number;
  additional: number;
  status: BookingStatus;
  holdDeadline: number;
}

/** The first event date between a day and three months after `at`, if any. */
export function upcomingDate(events: SeedEvent[], at: number): { event: SeedEvent; date: SeedEventDate } | null {
  const open = events.flatMap((event) =>
    event.dates
      .filter((d) => d.status !== 'cancelled' && d.scheduledAt > at + DAY_MS && d.scheduledAt < at + 90 * DAY_MS)
      .map((date) => ({ event, date })),
  );
  return open.length ? pick(open) : null;
}

function statusAt(scheduledAt: number, holdDeadline: number, now: number): BookingStatus {
  if (scheduledAt < now) {
    const s = weighted({ completed: 85, cancelled: 10, expired: 5 });
    return s === 'expired' && holdDeadline >= now ? 'cancelled' : s;
  }
  const s = weighted({ active: 80, hold: 7, cancelled: 8, expired: 5 });
  if (s === 'hold' && holdDeadline <= now) return 'active';
  if (s === 'expired' && holdDeadline >= now) return 'active';
  return s;
}

function guestsFor(product: SeedProduct | null, cap: number) {
  const total = int(1, Math.min(cap, 12));
  const juniors = product && product.prices.junior === null ? 0 : int(0, Math.floor(total / 2));
  return { adults: total - juniors, juniors, additional: chance(0.1) ? 1 : 0 };
}

export function planBooking(run: SeedRun, createdAt: number): BookingPlan {
  const { catalogue, now } = run;
  const event = chance(0.08) ? upcomingDate(catalogue.events, createdAt) : null;
  const product = event ? null : pick(catalogue.products);
  const venueId = product?.venueIds.length ? pick(product.venueIds) : null;
  const venue = event ? event.event.venue : (catalogue.venues.find((v) => v.id === venueId) ?? pick(catalogue.venues));
  let scheduledAt: number;
  if (event) {
    scheduledAt = event.date.scheduledAt;
  } else {
    const lead = weighted({ soon: 50, weeks: 35, months: 15 });
    const days = lead === 'soon' ? int(0, 6) : lead === 'weeks' ? int(7, 30) : int(31, 90);
    const slot = int(20, 42) * 30; // 10:00 to 21:00 venue time, on the half hour
    scheduledAt = atLocalTime(venue.timezone, createdAt + days * DAY_MS, slot);
    if (scheduledAt < createdAt + 2 * HOUR_MS) scheduledAt = atLocalTime(venue.timezone, createdAt + DAY_MS, slot);
  }
  const holdDeadline = Math.max(createdAt + HOUR_MS, scheduledAt - DAY_MS);
  return {
    venue,
    product,
    event,
    scheduledAt,
    minutes: product?.minutes ?? 120,
    ...guestsFor(product, product?.maxGuests ?? 8),
    status: statusAt(scheduledAt, holdDeadline, now),
    holdDeadline,
  };
}
