import { Type, type Static } from '@sinclair/typebox';
import {
  Cents,
  IdOf,
  Instant,
  Nullable,
  NullableInstant,
  NullableInteger,
  NullableString,
  described,
} from '../wire.schema.ts';

const Movement = Type.Object({
  type: Nullable(Type.String({ description: 'For example issue, redeem, refund.' })),
  amount: described(Cents, 'Whole cents this movement moved.'),
  balance_after: described(NullableInteger, 'The balance after this movement, in cents.'),
  order: described(Nullable(IdOf('ord')), 'The `ord_` id of the order it happened on, if any.'),
  booking: described(Nullable(IdOf('bkg')), 'The `bkg_` id of the booking it paid for, if any.'),
  created_at: described(Instant, 'When it happened (UTC, ISO 8601).'),
});

/** SPEC "Gift card". The whole code is never stored here, so it can never be sent. */
export const GiftCard = Type.Object(
  {
    id: IdOf('gft'),
    object: Type.Literal('gift_card', { description: 'Always `gift_card`.' }),
    code_last4: Nullable(Type.String({ maxLength: 4, description: 'Last four characters of the code.' })),
    balance: described(Cents, 'What is left on the card, in whole cents.'),
    expires_at: described(NullableInstant, 'When the card expires; null if it never does.'),
    active: Type.Boolean({ description: 'False once the card was cancelled.' }),
    holder: described(Nullable(IdOf('cus')), 'The `cus_` id of the customer who holds the card.'),
    buyer: described(Nullable(IdOf('cus')), 'The `cus_` id of the customer who bought it.'),
    recipient_name: described(NullableString, 'The name the card was made out to.'),
    delivered_at: described(NullableInstant, 'When the card was sent to its recipient.'),
    movements: Type.Array(Movement, { description: 'Every change to the balance, oldest first.' }),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'GiftCard' },
);
export type GiftCard = Static<typeof GiftCard>;

export const GiftCardFilters = {
  // The gift cards this customer holds or bought.
  customer: Type.Optional(described(IdOf('cus'), 'Only gift cards this `cus_` customer holds or bought.')),
};
