import { Type, type Static } from '@sinclair/typebox';
import { IdOf, NullableInstant } from '../wire.schema.ts';
import { toInstant } from '../../lib/time.ts';
import { COLLECTIONS, WRITES, type ApiKey } from './key.model.ts';

/** SPEC "Key", with the gaps DECISIONS "Keys" fills. */
export const KeyObject = Type.Object({
  id: IdOf('key'),
  object: Type.Literal('api_key'),
  kind: Type.String({ enum: ['standard', 'restricted'] }),
  access: Type.String({ enum: ['read', 'read_write'] }),
  mode: Type.String({ enum: ['test', 'live'] }),
  expires_at: NullableInstant,
  contacts_masked: Type.Boolean(),
  limits: Type.Object({
    requests_per_minute: Type.Integer(),
    requests_per_day: Type.Integer(),
    writes_per_minute: Type.Integer(),
    writes_per_day: Type.Integer(),
    removals_per_day: Type.Integer(),
    page_size_default: Type.Integer(),
    page_size_max: Type.Integer(),
  }),
  can_read: Type.Array(Type.String({ enum: [...COLLECTIONS] })),
  can_write: Type.Array(Type.String({ enum: [...WRITES] })),
});
export type KeyObject = Static<typeof KeyObject>;

export function toKeyObject(key: ApiKey): KeyObject {
  return {
    id: key.id,
    object: 'api_key',
    kind: key.kind,
    access: key.access,
    mode: key.mode,
    expires_at: toInstant(key.expiresAt),
    contacts_masked: key.contactsMasked,
    limits: { ...key.limits },
    can_read: [...key.canRead],
    can_write: [...key.canWrite],
  };
}
