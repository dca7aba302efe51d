import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { registerReadRoutes } from '../read.routes.ts';
import { getCustomer, listCustomers } from './customer-read.service.ts';
import { Customer, CustomerFilters } from './customer.schema.ts';

export async function customerReadRoutes(app: FastifyInstance, { db }: { db: Db }) {
  registerReadRoutes(app, {
    path: '/customers',
    collection: 'customers',
    record: Customer,
    filters: CustomerFilters,
    tag: 'Customers',
    summary: { list: 'List customers', get: 'Retrieve a customer' },
    list: (actor, query) => listCustomers(db, actor, query),
    get: (actor, id) => getCustomer(db, actor, id),
  });
}
