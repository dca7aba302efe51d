import { Type, type Static } from '@sinclair/typebox';
import {
  Cents,
  Currency,
  IdOf,
  Instant,
  Nullable,
  NullableEnum,
  NullableInstant,
  NullableString,
} from '../wire.schema.ts';

export const ORDER_TYPES = ['booking', 'event', 'gift_card', 'pos'] as const;

const OrderLine = Type.Object({
  id: Type.String(),
  name: NullableString,
  type: NullableString,
  category: NullableString,
  quantity: Type.Integer(),
  unit_price: Cents,
  total: Cents,
  discount: Cents,
  tax: Cents,
  tax_rate: NullableString,
  adjusts: Nullable(Type.String({ description: 'The line this one adjusts; lines are never edited.' })),
});

const Payment = Type.Object({
  amount: Cents,
  method: NullableString,
  status: NullableString,
  card: Nullable(Type.Object({ brand: NullableString, last4: Type.String() })),
  processed_at: NullableInstant,
});

const Refund = Type.Object({
  amount: Cents,
  reason: NullableString,
  status: NullableString,
  processed_at: NullableInstant,
});

/** SPEC "Order". */
export const Order = Type.Object({
  id: IdOf('ord'),
  object: Type.Literal('order'),
  number: Type.String(),
  reference: NullableString,
  type: NullableEnum(ORDER_TYPES),
  status: NullableString,
  venue: Nullable(IdOf('ven')),
  customer: Nullable(IdOf('cus')),
  booking: Nullable(IdOf('bkg')),
  event: Nullable(IdOf('evt')),
  billing_details: Type.Object(
    { name: NullableString, email: NullableString, phone: NullableString },
    { description: 'Who the order was for when it was taken (can differ from the customer today).' },
  ),
  currency: Currency,
  subtotal: Cents,
  discount: Cents,
  gift_card: Cents,
  store_credit: Cents,
  total: Cents,
  amount_refunded: Cents,
  amount_due: Cents,
  amount_paid: Type.Integer({ description: 'Cents, net of refunds.' }),
  discount_code: NullableString,
  due_date: NullableInstant,
  lines: Type.Array(OrderLine),
  payments: Type.Array(Payment),
  refunds: Type.Array(Refund),
  livemode: Type.Boolean(),
  created_at: Instant,
  updated_at: Instant,
});
export type Order = Static<typeof Order>;

export const OrderFilters = {
  customer: Type.Optional(IdOf('cus')),
  booking: Type.Optional(IdOf('bkg')),
  venue: Type.Optional(IdOf('ven')),
  number: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The order number.' })),
};
