import type { DocRecord } from '../db/doc-rows.ts';
import type { SeedRun } from './context.ts';
import type { SeedCustomer } from './customers.ts';
import type { OrderDraft } from './money.ts';
import { chance, int } from './random.ts';

/** An order record (SPEC "Order") from its money draft and what it was for. */
export interface OrderMeta {
  id: string;
  type: 'booking' | 'event' | 'gift_card' | 'pos';
  status: string;
  venue: string | null;
  customer: SeedCustomer | null;
  booking: string | null;
  event: string | null;
  discountCode: string | null;
  dueDate: number | null;
  createdAt: number;
  updatedAt: number;
  livemode: boolean;
}

export function orderRecord(run: SeedRun, draft: OrderDraft, meta: OrderMeta): DocRecord {
  const c = meta.customer;
  return {
    id: meta.id,
    created_at: meta.createdAt,
    updated_at: meta.updatedAt,
    livemode: meta.livemode,
    data: {
      number: String(run.counters.order++),
      reference: chance(0.05) ? `PO-${int(10000, 99999)}` : null,
      type: meta.type,
      status: meta.status,
      venue: meta.venue,
      customer: c?.id ?? null,
      booking: meta.booking,
      event: meta.event,
      billing_details: { name: c?.name ?? null, email: c?.email ?? null, phone: c?.phone ?? null },
      currency: run.profile.currency,
      ...draft.figures(),
      discount_code: meta.discountCode,
      due_date: meta.dueDate === null ? null : new Date(meta.dueDate).toISOString(),
      lines: draft.lines,
      payments: draft.payments,
      refunds: draft.refunds,
    },
  };
}
