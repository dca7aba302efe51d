import type { DocRecord } from '../db/doc-rows.ts';
import { newId } from '../lib/ids.ts';
import { DAY_MS } from '../lib/time.ts';
import { renameLocal } from './catalogue-events.ts';
import type { SeedRun, SeedVenue } from './context.ts';
import type { SeedCustomer } from './customers.ts';
import type { BookingPlan } from './booking-plan.ts';
import { STATUS_NAMES } from './products.ts';
import { chance, minutes, pick, weighted } from './random.ts';
import { localParts } from './timeline.ts';

/** A booking record (SPEC "Booking"); its money is on the order built in booking-orders.ts. */
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function bookingNumber(run: SeedRun, venue: SeedVenue): string {
  return `${venue.code}-${run.counters.booking++}`;
}

/** When the party arrived, for a booking that went ahead. */
export function checkInTime(plan: BookingPlan): number {
  return plan.scheduledAt - minutes(0, 15);
}

export function buildBooking(
  run: SeedRun,
  plan: BookingPlan,
  party: SeedCustomer[],
  times: { id: string; createdAt: number; updatedAt: number; checkedIn: number | null },
  livemode: boolean,
): DocRecord {
  const { createdAt, updatedAt, checkedIn } = times;
  const productRef = plan.event
    ? { object: 'event', id: plan.event.event.id, name: plan.event.event.name }
    : { object: plan.product!.object, id: plan.product!.id, name: plan.product!.name };
  const quantity = plan.product?.pricing === 'flat_rate' ? 1 : plan.adults + plan.juniors;
  const holds = plan.status === 'hold' || plan.status === 'expired';
  return {
    id: times.id,
    created_at: createdAt,
    updated_at: updatedAt,
    livemode,
    data: {
      number: bookingNumber(run, plan.venue),
      venue: plan.venue.id,
      status: { name: pick(STATUS_NAMES[plan.status]!), type: plan.status },
      scheduled_at: iso(plan.scheduledAt),
      ...renameLocal(localParts(plan.venue.timezone, plan.scheduledAt)),
      timezone: plan.venue.timezone,
      duration_minutes: plan.minutes,
      guests: { adults: plan.adults, juniors: plan.juniors, additional: plan.additional },
      people: party.map((c, i) => ({
        customer: c.id,
        primary: i === 0,
        adult: c.adult,
        role: i === 0 ? 'organiser' : 'guest',
        checked_in_at: checkedIn !== null && (i === 0 || chance(0.8)) ? iso(checkedIn + i * 60_000) : null,
      })),
      lines: [{ product: productRef, quantity }],
      source: weighted({ online: 60, phone: 15, walk_in: 8, staff: 12, partner: 5 }),
      blocked: false,
      checked_in_at: iso(checkedIn),
      hold_expires_at: holds ? iso(plan.holdDeadline) : null,
    },
  };
}

/** A staff block: holds a lane or room for maintenance or a private function; nobody's booking. */
export function buildBlock(run: SeedRun, createdAt: number): DocRecord {
  const venue = pick(run.catalogue.venues);
  const scheduledAt = createdAt + (1 + Math.floor(Math.random() * 20)) * DAY_MS;
  const past = scheduledAt < run.now;
  return {
    id: newId('booking'),
    created_at: createdAt,
    updated_at: createdAt,
    livemode: true,
    data: {
      number: bookingNumber(run, venue),
      venue: venue.id,
      status: {
        name: pick(['Maintenance', 'Staff training', 'Private function']),
        type: past ? 'completed' : 'active',
      },
      scheduled_at: iso(scheduledAt),
      ...renameLocal(localParts(venue.timezone, scheduledAt)),
      timezone: venue.timezone,
      duration_minutes: pick([60, 120, 240]),
      guests: { adults: 0, juniors: 0, additional: 0 },
      people: [],
      lines: [],
      source: 'staff',
      blocked: true,
      checked_in_at: null,
      hold_expires_at: null,
    },
  };
}
