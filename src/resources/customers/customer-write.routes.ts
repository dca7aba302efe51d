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
import {
  createCustomer,
  deleteCustomer,
  planCreateCustomer,
  planUpdateCustomer,
  updateCustomer,
  type CustomerResult,
} from './customer.service.ts';
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
  Type.String({
    // Markdown in the reference: a bare <version> would be read as an HTML tag and vanish.
    description:
      'The `ETag` you read, `"<version>"` (or `*`); 412 `precondition_failed` when the customer changed since, and nothing is written.',
  }),
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

/**
 * The tag and list memberships, one route to add and one to remove per kind: the addition
 * takes the id in its body (a POST, with Idempotency-Key), the removal in its path.
 */
const MEMBERSHIPS = [
  {
    kind: 'tag',
    member: true,
    summary: 'Tag a customer',
    description:
      'Adds an existing tag (`tag_` id) to the customer; tags are made in the workspace, not through the API. Tagging a customer who has the tag already changes nothing and is not an error.',
  },
  {
    kind: 'tag',
    member: false,
    summary: 'Untag a customer',
    description:
      'Takes a tag off the customer. Removing a tag the customer does not have is not an error. Counts against the daily removal budget.',
  },
  {
    kind: 'list',
    member: true,
    summary: 'Add a customer to a list',
    description:
      'Adds the customer to an existing list (`lst_` id); lists are made in the workspace, not through the API. A customer who left the list is put back.',
  },
  {
    kind: 'list',
    member: false,
    summary: 'Remove a customer from a list',
    description: 'Takes the customer off the list. Counts against the daily removal budget.',
  },
] as const;

const MEMBERSHIP_KINDS = {
  tag: { permission: 'customers.tags', body: TagBody, params: TagParams },
  list: { permission: 'customers.lists', body: ListBody, params: ListParams },
} as const;

/** What a membership route's schemas let through. */
interface MembershipRoute {
  Params: { id: string; tagId?: string; listId?: string };
  Body: { tag?: string; list?: string } | undefined;
  Headers: { 'if-match'?: string };
}

const versioned = (r: CustomerResult): Presented => ({ body: r.record, headers: { ETag: etagOf(r.version) } });
const plain = (body: unknown): Presented => ({ body });

interface Spec<P extends TSchema, B extends TSchema, H extends TSchema> {
  permission: WritePermission;
  summary: string;
  description: string;
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
  const { permission, summary, description, status, response, params, body, headers } = spec;
  return {
    config: { access: { kind: 'write' as const, permission } },
    // The parts a route has not are left out, not set to undefined: the document lists what is there.
    schema: withoutAbsent({
      tags: ['Customers'],
      summary,
      description,
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
      description:
        "Creates a customer of the key's mode (a test key makes test customers). `first_name` is required; an email another customer has is 409, so look it up first with `GET /customers?email=`. `marketing_consent` accepts only `false`. Retry a failed request with the same `Idempotency-Key`: it is written once.",
      status: 201,
      response: Customer,
      body: CreateCustomerBody,
      headers: IdempotencyHeader,
    }),
    async (request, reply) =>
      answerWrite(request, reply, {
        service: createCustomer,
        plan: planCreateCustomer,
        input: request.body,
        status: 201,
        present: versioned,
      }),
  );

  app.patch(
    '/customers/:id',
    options({
      permission: 'customers.update',
      summary: 'Update a customer',
      description:
        'Changes only the fields sent; `null` clears a nullable field and an unknown field is 400. An email or phone that is set cannot be changed or cleared (409); an empty one can be filled. Send the `ETag` you read as `If-Match` so a change made since is not overwritten (412, nothing written).',
      status: 200,
      response: Customer,
      params: IdParams,
      body: UpdateCustomerBody,
      headers: IfMatchHeader,
    }),
    async (request, reply) => {
      const input = { id: request.params.id, body: request.body, ifMatch: parseIfMatch(request.headers['if-match']) };
      return answerWrite(request, reply, {
        service: updateCustomer,
        plan: planUpdateCustomer,
        input,
        status: 200,
        present: versioned,
      });
    },
  );

  app.delete(
    '/customers/:id',
    options({
      permission: 'customers.delete',
      summary: 'Delete a customer',
      description:
        'Removes the customer; their bookings and orders stay. Counts against the daily removal budget. With `If-Match`, only if the customer is unchanged since you read it.',
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

  for (const { kind, member, summary, description } of MEMBERSHIPS) {
    const { permission, body, params } = MEMBERSHIP_KINDS[kind];
    instance.route<MembershipRoute>({
      method: member ? 'POST' : 'DELETE',
      url: member ? `/customers/:id/${kind}s` : `/customers/:id/${kind}s/:${kind}Id`,
      ...options<TSchema, TSchema, TSchema>({
        permission,
        summary,
        description,
        status: 200,
        response: Customer,
        ...(member
          ? { params: IdParams, body, headers: IdempotencyIfMatchHeaders }
          : { params, headers: IfMatchHeader }),
      }),
      handler: async (request, reply) => {
        const input = {
          customerId: request.params.id,
          kind,
          // Present: the route's schema requires it.
          id: (member ? request.body?.[kind] : request.params[`${kind}Id`])!,
          member,
          ifMatch: parseIfMatch(request.headers['if-match']),
        };
        return answerWrite(request, reply, { service: changeMembership, input, status: 200, present: versioned });
      },
    });
  }

  app.delete(
    '/test-data',
    options({
      permission: 'test_data.delete',
      summary: 'Remove what test keys made',
      description:
        "Test keys only (a live key gets 403): removes every customer the workspace's test keys made, and every tag and list membership they added. Live data and anything staff made are never touched. Counts against the daily removal budget.",
      status: 200,
      response: TestDataRemoval,
    }),
    async (request, reply) =>
      answerWrite(request, reply, { service: removeTestData, input: null, status: 200, present: plain }),
  );
}
