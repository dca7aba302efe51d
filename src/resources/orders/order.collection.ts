import { eq } from '../doc.repo.ts';
import type { DocCollection } from '../doc.service.ts';

type OrderFilterParams = {
  customer?: string;
  booking?: string;
  venue?: string;
  number?: string;
};

/** Test-aware: a test key sees only test orders (SPEC "Conventions", Test data). */
export const orders: DocCollection<OrderFilterParams> = {
  table: 'orders',
  object: 'order',
  idKind: 'order',
  mode: 'mode',
  filters: {
    customer: eq('customer_id'),
    booking: eq('booking_id'),
    venue: eq('venue_id'),
    number: eq('number'),
  },
};
