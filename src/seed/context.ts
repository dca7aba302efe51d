import type { CountryProfile, City } from './profiles.ts';
import { Sequence } from './timeline.ts';

/**
 * What one seed run carries from chunk to chunk: the catalogue every booking and order
 * points at (small, kept in memory), the per-table clocks that keep created_at distinct,
 * and the counters behind booking numbers, order numbers and unique emails.
 */
export interface SeedVenue {
  id: string;
  name: string;
  code: string;
  timezone: string;
  city: City;
}

export interface SeedProduct {
  object: 'activity' | 'package';
  id: string;
  name: string;
  pricing: 'per_head' | 'flat_rate';
  prices: { adult: number | null; junior: number | null; flat_rate: number | null; base: number | null };
  peak: { adult: number | null; junior: number | null; flat_rate: number | null; base: number | null } | null;
  minutes: number;
  maxGuests: number;
  /** Where it is sold; empty means every venue (SPEC "Activity"). */
  venueIds: string[];
  deposit: { type: string | null; value: number | null } | null;
}

export interface SeedEventDate {
  id: string;
  scheduledAt: number;
  label: string | null;
  price: number;
  status: string;
}

export interface SeedEvent {
  id: string;
  name: string;
  venue: SeedVenue;
  minTickets: number;
  /** Ascending by scheduledAt. */
  dates: SeedEventDate[];
}

export interface Catalogue {
  venues: SeedVenue[];
  products: SeedProduct[];
  events: SeedEvent[];
  tagIds: string[];
  listIds: string[];
}

export type SequencedTable = 'catalogue' | 'customers' | 'bookings' | 'orders' | 'tickets' | 'gift_cards';

export interface SeedRun {
  workspaceId: string;
  now: number;
  profile: CountryProfile;
  catalogue: Catalogue;
  seq: Record<SequencedTable, Sequence>;
  /** Makes this run's emails unlike any earlier run's (one customer per email). */
  emailTag: string;
  counters: { booking: number; order: number; email: number };
}

export function newSequences(): Record<SequencedTable, Sequence> {
  return {
    catalogue: new Sequence(),
    customers: new Sequence(),
    bookings: new Sequence(),
    orders: new Sequence(),
    tickets: new Sequence(),
    gift_cards: new Sequence(),
  };
}
