import type { FastifyInstance } from 'fastify';
import type { JsonReader } from './customer-json.repo.ts';
import { registerReadRoutes } from '../read.routes.ts';
import { getCustomer, listCustomers } from './customer-read.service.ts';
import { Customer, CustomerFilters } from './customer.schema.ts';

export async function customerReadRoutes(app: FastifyInstance, reader: JsonReader) {
  registerReadRoutes(app, {
    path: '/customers',
    collection: 'customers',
    record: Customer,
    filters: CustomerFilters,
    tag: 'Customers',
    summary: { list: 'List customers', get: 'Retrieve a customer' },
    list: (actor, query) => listCustomers(reader, actor, query),
    get: (actor, id) => getCustomer(reader, actor, id),
  });
}
