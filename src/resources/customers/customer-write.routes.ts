import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { parseIfMatch } from '../../http/if-match.ts';
import { sendWrite, type Presented } from '../../http/idempotency.ts';
import { ErrorResponses, IdParams } from '../../http/schemas.ts';
import type { Clock } from '../../lib/time.ts';
import type { WritePermission } from '../keys/key.model.ts';
import { addToList, removeFromList } from './customer-lists.service.ts';
import { addTag, removeTag } from './customer-tags.service.ts';
import { CreateCustomerBody, ListBody, TagBody, TestDataRemoval, UpdateCustomerBody } from './customer.body.ts';
import { Customer, DeletedCustomer } from './customer.schema.ts';
import { createCustomer, deleteCustomer, updateCustomer, type CustomerResult } from './customer.write.ts';
import { removeTestData } from './test-data.service.ts';
import { keyWriteScope } from './write-scope.ts';

/** SPEC "Customer write endpoints": thin routes over the write services. */
const NoQuery = Type.Object({}, { additionalProperties: false });
const IdempotencyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ maxLength: 255, description: 'Required (428 without it); reuse it only to retry the same request.' }),
  ),
});
const IfMatchHeader = Type.Object({
  'if-match': Type.Optional(
    Type.String({ description: 'The ETag you read ("<version>"); 412 when the customer changed since.' }),
  ),
});
// No length cap here: a malformed id is a 404 from the service (DECISIONS), not a 400.
const Membership = (name: 'tagId' | 'listId') => Type.Object({ id: Type.String(), [name]: Type.String() });

const versioned = (r: CustomerResult): Presented => ({ body: r.record, headers: { ETag: `"${r.version}"` } });
const plain = (body: unknown): Presented => ({ body });

interface Spec {
  permission: WritePermission;
  summary: string;
  status: 200 | 201;
  response: TSchema;
  params?: TSchema;
  body?: TSchema;
  headers?: TSchema;
}

// The limits plugin tells writes from removals by method (every DELETE is a removal).
function options({ permission, summary, status, response, params, body, headers }: Spec) {
  return {
    config: { access: { kind: 'write' as const, permission } },
    schema: {
      tags: ['Customers'],
      summary,
      querystring: NoQuery,
      ...(params ? { params } : {}),
      ...(body ? { body } : {}),
      ...(headers ? { headers } : {}),
      response: { [status]: response, ...ErrorResponses },
    },
  };
}

export async function customerWriteRoutes(app: FastifyInstance, { db, clock }: { db: Db; clock: Clock }) {
  const scope = (request: FastifyRequest) => keyWriteScope(request.scope!, clock);
  const param = (request: FastifyRequest, name: string) => (request.params as Record<string, string>)[name]!;
  const field = (request: FastifyRequest, name: string) => (request.body as Record<string, string>)[name]!;

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
      sendWrite(
        request,
        reply,
        201,
        (hooks) => createCustomer(db, scope(request), request.body as CreateCustomerBody, hooks),
        versioned,
      ),
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
      const ifMatch = parseIfMatch(request.headers['if-match']);
      const body = request.body as UpdateCustomerBody;
      return sendWrite(
        request,
        reply,
        200,
        (hooks) => updateCustomer(db, scope(request), param(request, 'id'), body, ifMatch, hooks),
        versioned,
      );
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
    }),
    async (request, reply) =>
      sendWrite(request, reply, 200, () => deleteCustomer(db, scope(request), param(request, 'id')), plain),
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
      headers: IdempotencyHeader,
    }),
    async (request, reply) =>
      sendWrite(
        request,
        reply,
        200,
        (hooks) => addTag(db, scope(request), param(request, 'id'), field(request, 'tag'), hooks),
        versioned,
      ),
  );

  app.delete(
    '/customers/:id/tags/:tagId',
    options({
      permission: 'customers.tags',
      summary: 'Untag a customer',
      status: 200,
      response: Customer,
      params: Membership('tagId'),
    }),
    async (request, reply) =>
      sendWrite(
        request,
        reply,
        200,
        () => removeTag(db, scope(request), param(request, 'id'), param(request, 'tagId')),
        versioned,
      ),
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
      headers: IdempotencyHeader,
    }),
    async (request, reply) =>
      sendWrite(
        request,
        reply,
        200,
        (hooks) => addToList(db, scope(request), param(request, 'id'), field(request, 'list'), hooks),
        versioned,
      ),
  );

  app.delete(
    '/customers/:id/lists/:listId',
    options({
      permission: 'customers.lists',
      summary: 'Remove a customer from a list',
      status: 200,
      response: Customer,
      params: Membership('listId'),
    }),
    async (request, reply) =>
      sendWrite(
        request,
        reply,
        200,
        () => removeFromList(db, scope(request), param(request, 'id'), param(request, 'listId')),
        versioned,
      ),
  );

  app.delete(
    '/test-data',
    options({
      permission: 'test_data.delete',
      summary: 'Remove what test keys made',
      status: 200,
      response: TestDataRemoval,
    }),
    async (request, reply) => sendWrite(request, reply, 200, () => removeTestData(db, scope(request)), plain),
  );
}
