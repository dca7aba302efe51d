import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { sendVersioned } from '../../http/etag.ts';
import { ErrorResponses, IdParams, ListEnvelope, PageQuery } from '../../http/schemas.ts';
import { getCustomer, listCustomers, type CustomerListParams } from './customer.read.ts';
import { Customer, CustomerFilters } from './customer.schema.ts';

const readAccess = { kind: 'read', collection: 'customers' } as const;

export async function customerReadRoutes(app: FastifyInstance, { db }: { db: Db }) {
  app.get(
    '/customers',
    {
      config: { access: readAccess },
      schema: {
        tags: ['Customers'],
        summary: 'List customers',
        querystring: Type.Object({ ...PageQuery, ...CustomerFilters }, { additionalProperties: false }),
        response: { 200: ListEnvelope(Customer), ...ErrorResponses },
      },
    },
    async (request) => listCustomers(db, request.scope!, request.query as CustomerListParams),
  );

  app.get(
    '/customers/:id',
    {
      config: { access: readAccess },
      schema: {
        tags: ['Customers'],
        summary: 'Retrieve a customer',
        params: IdParams,
        response: { 200: Customer, 304: Type.Null({ description: 'Not modified' }), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { record, version } = await getCustomer(db, request.scope!, (request.params as { id: string }).id);
      return sendVersioned(request, reply, record, version);
    },
  );
}
