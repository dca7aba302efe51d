import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { IdOf, Instant, Nullable, NullableEnum, NullableInteger, NullableString } from '../wire.schema.ts';

export const PRICING_MODELS = ['per_head', 'flat_rate'] as const;

const Prices = Type.Object({ adult: NullableInteger, junior: NullableInteger, flat_rate: NullableInteger });

export const GuestLimits = Type.Object({
  min_adults: NullableInteger,
  max_adults: NullableInteger,
  min_juniors: NullableInteger,
  max_juniors: NullableInteger,
  max_guests: NullableInteger,
});

/** The fields an activity and a package share (SPEC "Package": "Same fields as an activity"). */
export function bookableFields<P extends TProperties>(prices: P) {
  return {
    name: Type.String(),
    slug: Type.String(),
    description: NullableString,
    status: NullableString,
    pricing_model: NullableEnum(PRICING_MODELS),
    prices: Type.Object(prices, { description: 'Integer cents or null.' }),
    peak_prices: Nullable(Type.Object(prices, { description: 'Null where peak pricing is off.' })),
    guests: GuestLimits,
    staff_only: Type.Boolean({ description: 'True when only staff can book it.' }),
    venues: Type.Array(IdOf('ven'), { description: 'Where it is sold. Empty means every venue.' }),
  };
}

/** SPEC "Activity". */
export const Activity = Type.Object({
  id: IdOf('act'),
  object: Type.Literal('activity'),
  ...bookableFields(Prices.properties),
  created_at: Instant,
  updated_at: Instant,
});
export type Activity = Static<typeof Activity>;
