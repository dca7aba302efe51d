import { eq } from '../doc.repo.ts';
import type { DocCollection } from '../doc.service.ts';

type TicketFilterParams = {
  event?: string;
  customer?: string;
  order?: string;
};

/** Real records only: a test key sees an empty list (DECISIONS "Lists and ids"). */
export const tickets: DocCollection<TicketFilterParams> = {
  table: 'tickets',
  object: 'ticket',
  idKind: 'ticket',
  mode: 'live-only',
  filters: { event: eq('event_id'), customer: eq('customer_id'), order: eq('order_id') },
};
