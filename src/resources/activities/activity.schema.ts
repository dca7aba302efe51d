import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { IdOf, Instant, Nullable, NullableEnum, NullableInteger, NullableString, described } from '../wire.schema.ts';

const PRICING_MODELS = ['per_head', 'flat_rate'] as const;

/** The price members an activity and a package share, integer cents or null. */
export const PRICE_FIELDS = {
  adult: described(NullableInteger, 'Price per adult, in whole cents.'),
  junior: described(NullableInteger, 'Price per junior, in whole cents.'),
  flat_rate: described(NullableInteger, 'Price for the whole booking on flat-rate pricing, in whole cents.'),
};

const Prices = Type.Object(PRICE_FIELDS);

const GuestLimits = Type.Object(
  {
    min_adults: described(NullableInteger, 'Fewest adults a booking may have.'),
    max_adults: described(NullableInteger, 'Most adults a booking may have.'),
    min_juniors: described(NullableInteger, 'Fewest juniors a booking may have.'),
    max_juniors: described(NullableInteger, 'Most juniors a booking may have.'),
    max_guests: described(NullableInteger, 'Most guests in all a booking may have.'),
  },
  { description: 'How many guests a booking may have; null where there is no limit.' },
);

/** The fields an activity and a package share (SPEC "Package": "Same fields as an activity"). */
export function bookableFields<P extends TProperties>(prices: P) {
  return {
    name: Type.String({ description: 'The name customers see.' }),
    slug: Type.String({ description: 'A short, URL-safe name, unique in the workspace.' }),
    description: described(NullableString, 'What it is, for customers.'),
    status: described(NullableString, 'Whether it is on sale, as the venue names it.'),
    pricing_model: NullableEnum(PRICING_MODELS, { description: 'Priced per head or at a flat rate.' }),
    prices: Type.Object(prices, { description: 'Integer cents or null.' }),
    peak_prices: described(
      Nullable(Type.Object(prices)),
      'Peak-time prices, the same members as `prices`; null where peak pricing is off.',
    ),
    guests: GuestLimits,
    staff_only: Type.Boolean({ description: 'True when only staff can book it.' }),
    venues: Type.Array(IdOf('ven'), { description: 'Where it is sold. Empty means every venue.' }),
  };
}

/** SPEC "Activity". */
export const Activity = Type.Object(
  {
    id: IdOf('act'),
    object: Type.Literal('activity', { description: 'Always `activity`.' }),
    ...bookableFields(Prices.properties),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Activity' },
);
export type Activity = Static<typeof Activity>;
