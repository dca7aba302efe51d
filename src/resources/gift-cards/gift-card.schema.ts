import { Type, type Static } from '@sinclair/typebox';
import { Cents, IdOf, Instant, Nullable, NullableInstant, NullableInteger, NullableString } from '../wire.schema.ts';

const Movement = Type.Object({
  type: Nullable(Type.String({ description: 'For example issue, redeem, refund.' })),
  amount: Cents,
  balance_after: NullableInteger,
  order: Nullable(IdOf('ord')),
  booking: Nullable(IdOf('bkg')),
  created_at: Instant,
});

/** SPEC "Gift card". The whole code is never stored here, so it can never be sent. */
export const GiftCard = Type.Object({
  id: IdOf('gft'),
  object: Type.Literal('gift_card'),
  code_last4: Nullable(Type.String({ maxLength: 4, description: 'Last four characters of the code.' })),
  balance: Cents,
  expires_at: NullableInstant,
  active: Type.Boolean(),
  holder: Nullable(IdOf('cus')),
  buyer: Nullable(IdOf('cus')),
  recipient_name: NullableString,
  delivered_at: NullableInstant,
  movements: Type.Array(Movement),
  created_at: Instant,
  updated_at: Instant,
});
export type GiftCard = Static<typeof GiftCard>;

export const GiftCardFilters = {
  // The gift cards this customer holds or bought.
  customer: Type.Optional(IdOf('cus')),
};
