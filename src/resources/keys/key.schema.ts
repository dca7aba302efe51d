import { Type, type Static } from '@sinclair/typebox';
import { IdOf, NullableInstant, described } from '../wire.schema.ts';
import { toInstant } from '../../lib/time.ts';
import { COLLECTIONS, WRITES, type ApiKey } from './key.model.ts';

/** SPEC "Key", with the gaps DECISIONS "Keys" fills. */
export const KeyObject = Type.Object(
  {
    id: IdOf('key'),
    object: Type.Literal('api_key', { description: 'Always `api_key`.' }),
    kind: Type.String({
      enum: ['standard', 'restricted'],
      description: '`standard` (all its access allows) or `restricted` (only `can_read` and `can_write`).',
    }),
    access: Type.String({ enum: ['read', 'read_write'], description: '`read` keys get 403 on every write.' }),
    mode: Type.String({ enum: ['test', 'live'], description: '`test` keys see and write test data only.' }),
    expires_at: described(NullableInstant, 'When the key stops working; null if it never expires.'),
    contacts_masked: Type.Boolean({
      description: 'True when this key sees emails and phones masked (`j***@example.com`, `+*********78`).',
    }),
    limits: Type.Object(
      {
        requests_per_minute: Type.Integer({ description: 'Requests a minute (fixed 60-second windows).' }),
        requests_per_day: Type.Integer({ description: 'Requests a day (days start at 00:00 UTC).' }),
        writes_per_minute: Type.Integer({ description: 'POST and PATCH requests a minute.' }),
        writes_per_day: Type.Integer({ description: 'POST and PATCH requests a day.' }),
        removals_per_day: Type.Integer({ description: 'DELETE requests a day.' }),
        page_size_default: Type.Integer({ description: 'The page size of a list called without `limit`.' }),
        page_size_max: Type.Integer({ description: 'The largest `limit` a list accepts.' }),
      },
      { description: 'The figures in force for this key.' },
    ),
    can_read: Type.Array(Type.String({ enum: [...COLLECTIONS] }), {
      description: 'The collections this key may read.',
    }),
    can_write: Type.Array(Type.String({ enum: [...WRITES] }), {
      description: 'The writes this key may make; empty for a read key.',
    }),
    allowed_ips: Type.Array(Type.String(), {
      description:
        'The IPv4 and IPv6 addresses and CIDR ranges this key may be used from; empty when it may be used from anywhere. A request from elsewhere gets 403 `forbidden`.',
    }),
  },
  { title: 'Key' },
);
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
    allowed_ips: [...key.allowedIps],
  };
}
