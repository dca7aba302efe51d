import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerReadRoutes } from '../read.routes.ts';
import { checkCustomerJson } from './customer-json.repo.ts';
import { getCustomer, listCustomers } from './customer-read.service.ts';
import { CustomerListFilters, CustomerListItem } from './customer-deletion.schema.ts';
import { Customer } from './customer.schema.ts';

export async function customerReadRoutes(app: FastifyInstance, options: { db: Db }) {
  const { db } = options;
  checkCustomerJson(db);
  registerReadRoutes(app, {
    path: '/customers',
    collection: 'customers',
    record: Customer,
    filters: CustomerListFilters,
    listItem: CustomerListItem,
    tag: 'Customers',
    summary: { list: 'List customers', get: 'Retrieve a customer' },
    about:
      "The workspace's customers. A test key sees only test customers (`livemode: false`), a live key only real ones; a key with `contacts_masked` sees emails and phones masked. `email` finds one customer by exact address, any case, masked keys included.",
    listAbout:
      'With `updated_since`, `include_deleted=true` also lists the customers deleted at or after it, each as `{"id": "cus_…", "object": "customer", "deleted": true, "deleted_at": …}` in the place it held in the list, so one cursor walks both (see Pagination).',
    list: (actor, query) => listCustomers(db, actor, query),
    get: (actor, id) => getCustomer(db, actor, id),
  });
}
