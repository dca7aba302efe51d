import { Type, type Static } from '@sinclair/typebox';
import { IdOf, Instant, described } from '../wire.schema.ts';
import { Customer, CustomerFilters } from './customer.schema.ts';

/**
 * A customer deleted since `updated_since`, as `GET /customers?include_deleted=true` lists it
 * (DECISIONS "Webhooks", "Deletions for pollers"): in the place the customer held in the list.
 */
const CustomerDeletion = Type.Object(
  {
    id: IdOf('cus'),
    object: Type.Literal('customer', { description: 'Always `customer`.' }),
    deleted: Type.Literal(true, { description: 'Always true: the customer was deleted.' }),
    deleted_at: described(Instant, 'When the customer was deleted.'),
  },
  { title: 'CustomerDeletion', description: 'A customer deleted at or after `updated_since`: remove your copy of it.' },
);
type CustomerDeletion = Static<typeof CustomerDeletion>;

/** A customer list's item: a customer, or (with `include_deleted=true`) a deletion. */
export const CustomerListItem = Type.Unsafe<Customer | CustomerDeletion>({
  oneOf: [Customer, CustomerDeletion],
  title: 'CustomerListItem',
  description: 'A customer, or with `include_deleted=true` a deletion (`deleted: true`).',
});

export const CustomerListFilters = {
  ...CustomerFilters,
  include_deleted: Type.Optional(
    Type.Boolean({
      description:
        'With `updated_since` only: also list the customers deleted at or after it, each as `{"id","object","deleted":true,"deleted_at"}` in its place in the list. Deletions are kept 365 days.',
    }),
  ),
};
