import { eq, instantFilter } from '../doc.repo.ts';
import type { DocCollection } from '../doc.service.ts';

type BookingFilterParams = {
  venue?: string;
  number?: string;
  scheduled_from?: string;
  scheduled_to?: string;
};

/** Test-aware: a test key sees only test bookings (SPEC "Conventions", Test data). */
export const bookings: DocCollection<BookingFilterParams> = {
  table: 'bookings',
  object: 'booking',
  idKind: 'booking',
  mode: 'mode',
  filters: {
    venue: eq('venue_id'),
    number: eq('number'),
    scheduled_from: instantFilter('scheduled_at', '>=', 'scheduled_from'),
    scheduled_to: instantFilter('scheduled_at', '<', 'scheduled_to'),
  },
};
