import { isCalendarDate } from '../lib/time.ts';
import { EMAIL_ADDRESS } from '../resources/customers/customer-input.model.ts';
import { toE164 } from '../resources/customers/phone.model.ts';
import type { ObjectName } from './record-kinds.ts';

/**
 * What a record points at, and the checks its schema cannot express. A reference must
 * name a record of this workspace (already stored, or a good line of the same file), of
 * the same mode where that matters: test data only ever points at test data, and
 * tickets and gift cards are real records only (SPEC "Conventions": Test data).
 */
export type Target =
  | 'venue'
  | 'tag'
  | 'list'
  | 'activity'
  | 'package'
  | 'event'
  | 'event_date'
  | 'customer'
  | 'booking'
  | 'order';

export interface Ref {
  field: string;
  target: Target;
  id: string;
  /** The mode the target must have (customers, bookings, orders). */
  livemode?: boolean;
  /** For an event date: the event it must belong to. */
  event?: string | null;
}

// biome-ignore lint/suspicious/noExplicitAny: a record the import's schema check has already validated
type Rec = Record<string, any>;

const PRODUCT_PREFIX: Record<string, string> = { activity: 'act_', package: 'pkg_', event: 'evt_' };

export function referencesOf(object: ObjectName, r: Rec): Ref[] {
  const refs: Ref[] = [];
  const add = (field: string, target: Target, id: unknown, extra: Partial<Ref> = {}) => {
    if (typeof id === 'string') refs.push({ field, target, id, ...extra });
  };
  const mode = { livemode: r.livemode as boolean };
  const live = { livemode: true };
  switch (object) {
    case 'activity':
    case 'package':
      for (const [i, id] of (r.venues as string[]).entries()) add(`venues.${i}`, 'venue', id);
      break;
    case 'event':
      add('venue', 'venue', r.venue);
      break;
    case 'customer':
      for (const [i, t] of (r.tags as Rec[]).entries()) add(`tags.${i}.id`, 'tag', t.id);
      for (const [i, l] of (r.lists as Rec[]).entries()) add(`lists.${i}.id`, 'list', l.id);
      break;
    case 'booking':
      add('venue', 'venue', r.venue);
      for (const [i, p] of (r.people as Rec[]).entries()) add(`people.${i}.customer`, 'customer', p.customer, mode);
      for (const [i, l] of (r.lines as Rec[]).entries())
        if (l.product) add(`lines.${i}.product.id`, l.product.object, l.product.id);
      break;
    case 'order':
      add('venue', 'venue', r.venue);
      add('customer', 'customer', r.customer, mode);
      add('booking', 'booking', r.booking, mode);
      add('event', 'event', r.event);
      break;
    case 'ticket':
      add('event', 'event', r.event);
      add('event_date', 'event_date', r.event_date, { event: r.event });
      add('order', 'order', r.order, live);
      add('customer', 'customer', r.customer, live);
      break;
    case 'gift_card':
      add('holder', 'customer', r.holder, live);
      add('buyer', 'customer', r.buyer, live);
      r.movements.forEach((m: Rec, i: number) => {
        add(`movements.${i}.order`, 'order', m.order, live);
        add(`movements.${i}.booking`, 'booking', m.booking, live);
      });
      break;
  }
  return refs;
}

function isTimeZone(tz: unknown): boolean {
  if (typeof tz !== 'string') return tz === null;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Rules beyond the schema, as readable reasons. Customers' email is lowercased here, as stored. */
export function recordProblems(object: ObjectName, r: Rec): string[] {
  const problems: string[] = [];
  if ('timezone' in r && !isTimeZone(r.timezone)) problems.push(`timezone "${r.timezone}" is not an IANA timezone`);
  if (object === 'booking') {
    r.lines.forEach((l: Rec, i: number) => {
      if (l.product && !String(l.product.id).startsWith(PRODUCT_PREFIX[l.product.object]!)) {
        problems.push(`lines.${i}.product.id is not an id of a ${l.product.object}`);
      }
    });
  }
  if (object === 'ticket' && r.event_date !== null && r.event === null)
    problems.push('event_date needs the event it belongs to');
  if (object === 'event') {
    const ids = r.dates.map((d: Rec) => d.id);
    if (new Set(ids).size !== ids.length) problems.push('dates has the same id twice');
  }
  if (object === 'customer') {
    for (const field of ['tags', 'lists'] as const) {
      const ids = r[field].map((m: Rec) => m.id);
      if (new Set(ids).size !== ids.length)
        problems.push(`${field} names the same ${field === 'tags' ? 'tag' : 'list'} twice`);
    }
    if (!r.first_name.trim()) problems.push('first_name cannot be empty');
    if (r.email !== null) {
      r.email = r.email.trim().toLowerCase();
      if (!EMAIL_ADDRESS.test(r.email)) problems.push('email is not an email address');
    }
    if (r.phone !== null && toE164(r.phone, null) !== r.phone)
      problems.push('phone must be in E.164, like +61412345678');
    if (r.date_of_birth !== null && !isCalendarDate(r.date_of_birth))
      problems.push('date_of_birth is not a calendar date');
  }
  return problems;
}
