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
  described,
} from '../wire.schema.ts';

const ORDER_TYPES = ['booking', 'event', 'gift_card', 'pos'] as const;

const OrderLine = Type.Object({
  id: Type.String({ description: "The line's id within the order." }),
  name: described(NullableString, 'What was sold.'),
  type: described(NullableString, "The kind of line, as the venue's system names it."),
  category: described(NullableString, 'The product category.'),
  quantity: Type.Integer({ description: 'How many.' }),
  unit_price: described(Cents, 'Price of one, in whole cents.'),
  total: described(Cents, "The line's total, in whole cents."),
  discount: described(Cents, 'Discount on the line, in whole cents.'),
  tax: described(Cents, 'Tax in the line, in whole cents.'),
  tax_rate: described(NullableString, 'The tax rate applied, as a decimal string.'),
  adjusts: Nullable(Type.String({ description: 'The line this one adjusts; lines are never edited.' })),
});

const Payment = Type.Object({
  amount: described(Cents, 'Amount paid, in whole cents.'),
  method: described(NullableString, 'How it was paid.'),
  status: described(NullableString, "The payment's status."),
  card: described(
    Nullable(
      Type.Object({
        brand: described(NullableString, 'The card brand.'),
        last4: Type.String({ description: 'The last four digits of the card.' }),
      }),
    ),
    'The card paid with; null when no card was used.',
  ),
  processed_at: described(NullableInstant, 'When the payment went through.'),
});

const Refund = Type.Object({
  amount: described(Cents, 'Amount refunded, in whole cents.'),
  reason: described(NullableString, 'Why it was refunded.'),
  status: described(NullableString, "The refund's status."),
  processed_at: described(NullableInstant, 'When the refund went through.'),
});

/** SPEC "Order". */
export const Order = Type.Object(
  {
    id: IdOf('ord'),
    object: Type.Literal('order', { description: 'Always `order`.' }),
    number: Type.String({ description: 'The order number a person reads out.' }),
    reference: described(NullableString, 'An outside reference for the order.'),
    type: NullableEnum(ORDER_TYPES, { description: 'What the order was for.' }),
    status: described(NullableString, "The order's status."),
    venue: described(Nullable(IdOf('ven')), 'The `ven_` id of the venue that sold it.'),
    customer: described(Nullable(IdOf('cus')), 'The `cus_` id of the customer.'),
    booking: described(Nullable(IdOf('bkg')), 'The `bkg_` id of the booking it pays for.'),
    event: described(Nullable(IdOf('evt')), 'The `evt_` id of the event it sells tickets to.'),
    billing_details: Type.Object(
      {
        name: described(NullableString, 'The name on the order.'),
        email: described(NullableString, 'The email on the order (masked for masked keys).'),
        phone: described(NullableString, 'The phone on the order (masked for masked keys).'),
      },
      { description: 'Who the order was for when it was taken (can differ from the customer today).' },
    ),
    currency: Currency,
    subtotal: described(Cents, 'Before discounts, in whole cents.'),
    discount: described(Cents, 'Discounts, in whole cents.'),
    gift_card: described(Cents, 'Paid with gift cards, in whole cents.'),
    store_credit: described(Cents, 'Paid with store credit, in whole cents.'),
    total: described(Cents, "The order's total, in whole cents."),
    amount_refunded: described(Cents, 'Refunded so far, in whole cents.'),
    amount_due: described(Cents, 'Still to pay, in whole cents.'),
    amount_paid: Type.Integer({ description: 'Cents, net of refunds.' }),
    discount_code: described(NullableString, 'The discount code used.'),
    due_date: described(NullableInstant, 'When payment is due.'),
    lines: Type.Array(OrderLine, { description: 'What was sold; a change is a new line that `adjusts` another.' }),
    payments: Type.Array(Payment, { description: 'Payments taken.' }),
    refunds: Type.Array(Refund, { description: 'Refunds made.' }),
    livemode: Type.Boolean({ description: 'False for test data, true for real data.' }),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Order' },
);
export type Order = Static<typeof Order>;

export const OrderFilters = {
  customer: Type.Optional(described(IdOf('cus'), 'Only orders of this `cus_` customer.')),
  booking: Type.Optional(described(IdOf('bkg'), 'Only orders for this `bkg_` booking.')),
  venue: Type.Optional(described(IdOf('ven'), 'Only orders at this `ven_` venue.')),
  number: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The order number.' })),
};
