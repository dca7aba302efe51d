import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, LocalDate, Nullable, NullableInteger, NullableString, described } from '../wire.schema.ts';
import { PRICE_FIELDS, bookableFields } from '../activities/activity.schema.ts';

/** SPEC "Package": an activity's fields, a `base` price, and these additions. */
export const Package = Type.Object(
  {
    id: IdOf('pkg'),
    object: Type.Literal('package', { description: 'Always `package`.' }),
    ...bookableFields({
      ...PRICE_FIELDS,
      base: described(NullableInteger, "The package's base price before per-head prices, in whole cents."),
    }),
    duration_minutes: described(NullableInteger, 'How long the package lasts, in minutes.'),
    deposit: described(
      Nullable(
        Type.Object({
          type: described(NullableString, 'How the deposit is worked out, as the venue names it.'),
          value: described(NullableInteger, "The deposit's amount or rate."),
        }),
      ),
      'The deposit a booking must pay; null when none.',
    ),
    available_from: described(Nullable(LocalDate), 'First day it can be booked for, yyyy-MM-dd.'),
    available_until: described(Nullable(LocalDate), 'Last day it can be booked for, yyyy-MM-dd.'),
    created_at: Instant,
    updated_at: Instant,
  },
  { title: 'Package' },
);
export type Package = Static<typeof Package>;
