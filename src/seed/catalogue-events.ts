import type { DocRecord } from '../db/doc-rows.ts';
import { newId } from '../lib/ids.ts';
import { DAY_MS } from '../lib/time.ts';
import type { SeedEvent, SeedEventDate, SeedVenue } from './context.ts';
import { EVENT_IDEAS, type EventIdea } from './products.ts';
import type { CountryProfile } from './profiles.ts';
import { chance, int, pick, sample } from './random.ts';
import type { SlugSet } from './slugs.ts';
import { atLocalTime, localParts } from './timeline.ts';

/** Ticketed events with their dates (SPEC "Event"): from the start of the span to 4 months ahead. */
const AHEAD_MS = 120 * DAY_MS;

function dateTimes(idea: EventIdea, venue: SeedVenue, from: number, now: number): number[] {
  const tz = venue.timezone;
  if (idea.mode === 'single') {
    // New Year's Eve: the next one still to come.
    const year = new Date(now).getUTCFullYear();
    let day = Date.UTC(year, 11, 31, 12);
    if (atLocalTime(tz, day, idea.minuteOfDay) <= now) day = Date.UTC(year + 1, 11, 31, 12);
    return [atLocalTime(tz, day, idea.minuteOfDay)];
  }
  const times: number[] = [];
  const until = now + AHEAD_MS;
  const count = idea.mode === 'several' ? int(4, 6) : Number.POSITIVE_INFINITY;
  const step = idea.mode === 'several' ? Math.floor((until - from) / count) : idea.everyDays * DAY_MS;
  for (let day = from + int(1, idea.everyDays) * DAY_MS; day < until && times.length < count; day += step) {
    times.push(atLocalTime(tz, day, idea.minuteOfDay));
  }
  return times;
}

function buildDates(idea: EventIdea, venue: SeedVenue, from: number, now: number, price: number): SeedEventDate[] {
  return dateTimes(idea, venue, from, now).map((scheduledAt, i) => ({
    id: newId('event_date'),
    scheduledAt,
    label: idea.mode === 'several' ? `Round ${i + 1}` : null,
    // A few dates cost more (a special guest); the rest use the event's price.
    price: chance(0.1) ? price + Math.round(price * 0.3) : price,
    status: chance(0.03) ? 'cancelled' : scheduledAt < now ? 'completed' : 'on_sale',
  }));
}

export function buildEvents(
  profile: CountryProfile,
  venues: SeedVenue[],
  slugs: SlugSet,
  at: () => number,
  now: number,
  from: number,
) {
  const records: DocRecord[] = [];
  const events: SeedEvent[] = [];
  for (const idea of sample(EVENT_IDEAS, int(4, 5))) {
    const venue = pick(venues);
    const price = Math.round((idea.price * profile.priceFactor) / 50) * 50;
    const dates = buildDates(idea, venue, from, now, price);
    const event: SeedEvent = { id: newId('event'), name: idea.name, venue, minTickets: 1, dates };
    events.push(event);
    const created = at();
    records.push({
      id: event.id,
      created_at: created,
      updated_at: Math.max(created, Math.min(now, dates[dates.length - 1]?.scheduledAt ?? created)),
      data: {
        name: idea.name,
        slug: slugs.take(`${idea.name} ${venue.city.name}`),
        description: idea.description,
        status: 'published',
        venue: venue.id,
        price_per_ticket: price,
        max_tickets: idea.maxTickets,
        min_tickets: event.minTickets,
        min_age: idea.minAge,
        duration_minutes: idea.minutes,
        date_mode: idea.mode,
        timezone: venue.timezone,
        staff_only: false,
        dates: dates.map((d) => ({
          id: d.id,
          label: d.label,
          scheduled_at: new Date(d.scheduledAt).toISOString(),
          ...renameLocal(localParts(venue.timezone, d.scheduledAt)),
          duration_minutes: idea.minutes,
          max_tickets: idea.maxTickets,
          price_per_ticket: d.price === price ? null : d.price,
          status: d.status,
        })),
      },
    });
  }
  return { records, events };
}

export function renameLocal(p: { localDate: string; localTime: string }) {
  return { local_date: p.localDate, local_time: p.localTime };
}
