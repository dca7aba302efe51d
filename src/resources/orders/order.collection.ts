import type { Actor } from '../actor.model.ts';
import { maskEmail, maskPhone } from '../../lib/mask.ts';
import { eq } from '../doc.repo.ts';
import type { DocCollection } from '../doc.service.ts';
import type { Order } from './order.schema.ts';

type OrderFilterParams = {
  customer?: string;
  booking?: string;
  venue?: string;
  number?: string;
};

/** DECISIONS "Keys": a contacts-masked key never sees billing email or phone in full. */
function maskBilling(order: Order, actor: Actor): Order {
  if (!actor.contactsMasked) return order;
  const billing = order.billing_details;
  return {
    ...order,
    billing_details: { ...billing, email: maskEmail(billing.email), phone: maskPhone(billing.phone) },
  };
}

/** Test-aware: a test key sees only test orders (SPEC "Conventions", Test data). */
export const orders: DocCollection<OrderFilterParams, Order> = {
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
  present: maskBilling,
};
