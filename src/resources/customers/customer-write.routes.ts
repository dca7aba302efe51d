import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { etagOf } from '../../http/etag.ts';
import { parseIfMatch } from '../../http/if-match.ts';
import { ErrorResponses, IdParams } from '../../http/schemas.ts';
import { answerWrite, type Presented } from '../../http/write-reply.ts';
import type { WritePermission } from '../keys/key.model.ts';
import { CreateCustomerBody, ListBody, TagBody, TestDataRemoval, UpdateCustomerBody } from './customer-body.schema.ts';
import { Customer, DeletedCustomer } from './customer.schema.ts';
import { createCustomer, deleteCustomer, updateCustomer, type CustomerResult } from './customer.service.ts';
import { changeMembership } from './membership.service.ts';
import { removeTestData } from './test-data.service.ts';

/** SPEC "Customer write endpoints": thin routes over the write services, through the write pipeline. */
const NoQuery = Type.Object({}, { additionalProperties: false });
const IdempotencyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ maxLength: 255, description: 'Required (428 without it); reuse it only to retry the same request.' }),
  ),
});
const ifMatch = Type.Optional(
  Type.String({ description: 'The ETag you read ("<version>"); 412 when the customer changed since.' }),
);
const IfMatchHeader = Type.Object({ 'if-match': ifMatch });
// The tag and list additions are POSTs: their Idempotency-Key, and If-Match like every customer write.
const IdempotencyIfMatchHeaders = Type.Object({ ...IdempotencyHeader.properties, 'if-match': ifMatch });
// No length cap here: a malformed id is a 404 from the service (DECISIONS), not a 400.
const CustomerId = Type.String({ description: 'The `cus_` id of the customer.' });
const TagParams = Type.Object({ id: CustomerId, tagId: Type.String({ description: 'The `tag_` id to remove.' }) });
const ListParams = Type.Object({
  id: CustomerId,
  listId: Type.String({ description: 'The `lst_` id of the list to take the customer off.' }),
});

const versioned = (r: CustomerResult): Presented => ({ body: r.record, headers: { ETag: etagOf(r.version) } });
const plain = (body: unknown): Presented => ({ body });

interface Spec<P extends TSchema, B extends TSchema, H extends TSchema> {
  permission: WritePermission;
  summary: string;
  status: 200 | 201;
  response: TSchema;
  params?: P;
  body?: B;
  headers?: H;
}

function withoutAbsent<T extends object>(schema: T): T {
  return Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined)) as T;
}

// The limits plugin tells writes from removals by method (every DELETE is a removal).
function options<P extends TSchema, B extends TSchema, H extends TSchema>(spec: Spec<P, B, H>) {
  const { permission, summary, status, response, params, body, headers } = spec;
  return {
    config: { access: { kind: 'write' as const, permission } },
    // The parts a route has not are left out, not set to undefined: the document lists what is there.
    schema: withoutAbsent({
      tags: ['Customers'],
      summary,
      querystring: NoQuery,
      params: params as P,
      body: body as B,
      headers: headers as H,
      response: { [status]: response, ...ErrorResponses },
    }),
  };
}

export async function customerWriteRoutes(instance: FastifyInstance) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/customers',
    options({
      permission: 'customers.create',
      summary: 'Create a customer',
      status: 201,
      response: Customer,
      body: CreateCustomerBody,
      headers: IdempotencyHeader,
    }),
    async (request, reply) =>
      answerWrite(request, reply, { service: createCustomer, input: request.body, status: 201, present: versioned }),
  );

  app.patch(
    '/customers/:id',
    options({
      permission: 'customers.update',
      summary: 'Update a customer',
      status: 200,
      response: Customer,
      params: IdParams,
      body: UpdateCustomerBody,
      headers: IfMatchHeader,
    }),
    async (request, reply) => {
      const input = { id: request.params.id, body: request.body, ifMatch: parseIfMatch(request.headers['if-match']) };
      return answerWrite(request, reply, { service: updateCustomer, input, status: 200, present: versioned });
    },
  );

  app.delete(
    '/customers/:id',
    options({
      permission: 'customers.delete',
      summary: 'Delete a customer',
      status: 200,
      response: DeletedCustomer,
      params: IdParams,
      headers: IfMatchHeader,
    }),
    async (request, reply) =>
      answerWrite(request, reply, {
        service: deleteCustomer,
        input: { id: request.params.id, ifMatch: parseIfMatch(request.headers['if-match']) },
        status: 200,
        present: plain,
      }),
  );

  app.post(
    '/customers/:id/tags',
    options({
      permission: 'customers.tags',
      summary: 'Tag a customer',
      status: 200,
      response: Customer,
      params: IdParams,
      body: TagBody,
      headers: IdempotencyIfMatchHeaders,
    }),
    async (request, reply) => {
      const input = {
        customerId: request.params.id,
        kind: 'tag' as const,
        id: request.body.tag,
        member: true,
        ifMatch: parseIfMatch(request.headers['if-match']),
      };
      return answerWrite(request, reply, { service: changeMembership, input, status: 200, present: versioned });
    },
  );

  app.delete(
    '/customers/:id/tags/:tagId',
    options({
      permission: 'customers.tags',
      summary: 'Untag a customer',
      status: 200,
      response: Customer,
      params: TagParams,
      headers: IfMatchHeader,
    }),
    async (request, reply) => {
      const input = {
        customerId: request.params.id,
        kind: 'tag' as const,
        id: request.params.tagId,
        member: false,
        ifMatch: parseIfMatch(request.headers['if-match']),
      };
      return answerWrite(request, reply, { service: changeMembership, input, status: 200, present: versioned });
    },
  );

  app.post(
    '/customers/:id/lists',
    options({
      permission: 'customers.lists',
      summary: 'Add a customer to a list',
      status: 200,
      response: Customer,
      params: IdParams,
      body: ListBody,
      headers: IdempotencyIfMatchHeaders,
    }),
    async (request, reply) => {
      const input = {
        customerId: request.params.id,
        kind: 'list' as const,
        id: request.body.list,
        member: true,
        ifMatch: parseIfMatch(request.headers['if-match']),
      };
      return answerWrite(request, reply, { service: changeMembership, input, status: 200, present: versioned });
    },
  );

  app.delete(
    '/customers/:id/lists/:listId',
    options({
      permission: 'customers.lists',
      summary: 'Remove a customer from a list',
      status: 200,
      response: Customer,
      params: ListParams,
      headers: IfMatchHeader,
    }),
    async (request, reply) => {
      const input = {
        customerId: request.params.id,
        kind: 'list' as const,
        id: request.params.listId,
        member: false,
        ifMatch: parseIfMatch(request.headers['if-match']),
      };
      return answerWrite(request, reply, { service: changeMembership, input, status: 200, present: versioned });
    },
  );

  app.delete(
    '/test-data',
    options({
      permission: 'test_data.delete',
      summary: 'Remove what test keys made',
      status: 200,
      response: TestDataRemoval,
    }),
    async (request, reply) =>
      answerWrite(request, reply, { service: removeTestData, input: null, status: 200, present: plain }),
  );
}
