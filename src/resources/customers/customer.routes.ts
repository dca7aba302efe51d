import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import type { Clock } from '../../lib/time.ts';
import { registerReadRoutes } from '../read-routes.ts';
import { getCustomer, listCustomers } from './customer.read.ts';
import { Customer, CustomerFilters } from './customer.schema.ts';

// The clock is the service's (DECISIONS "Customers": adult is 18 or older today).
export async function customerReadRoutes(app: FastifyInstance, { db, clock }: { db: Db; clock: Clock }) {
  registerReadRoutes(app, {
    path: '/customers',
    collection: 'customers',
    record: Customer,
    filters: CustomerFilters,
    tag: 'Customers',
    summary: { list: 'List customers', get: 'Retrieve a customer' },
    list: (scope, query) => listCustomers(db, scope, query, clock()),
    get: (scope, id) => getCustomer(db, scope, id, clock()),
  });
}
