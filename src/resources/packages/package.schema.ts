import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, LocalDate, Nullable, NullableInteger, NullableString } from '../wire.schema.ts';
import { bookableFields } from '../activities/activity.schema.ts';

/** SPEC "Package": an activity's fields, a `base` price, and these additions. */
export const Package = Type.Object({
  id: IdOf('pkg'),
  object: Type.Literal('package'),
  ...bookableFields({
    adult: NullableInteger,
    junior: NullableInteger,
    flat_rate: NullableInteger,
    base: NullableInteger,
  }),
  duration_minutes: NullableInteger,
  deposit: Nullable(Type.Object({ type: NullableString, value: NullableInteger })),
  available_from: Nullable(LocalDate),
  available_until: Nullable(LocalDate),
  created_at: Instant,
  updated_at: Instant,
});
export type Package = Static<typeof Package>;
