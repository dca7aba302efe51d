import { z } from 'zod';
import { toolResult } from '../answers.ts';
import { derivedIdempotencyKey } from '../idempotency.ts';
import { zodShape } from '../json-schema-zod.ts';
import type { Profile } from '../profile.ts';
import { type OfferedTool, segment, type ToolFamily } from './context.ts';

const customerId = z.string().min(1).max(100).describe('The customer id, cus_….');
const CHANGE_LOG = 'Every change is recorded against this key, and a person can undo it from the developer settings.';

/** The customer fields a write takes: its request body as /openapi.json declares it. */
function bodyOf(profile: Profile, operationId: 'createCustomer' | 'updateCustomer') {
  const schema = profile.document.bodies[operationId];
  if (!schema) throw new Error(`/openapi.json declares no request body for ${operationId}`);
  const shape = zodShape(schema, operationId);
  if ('id' in shape || 'if_match' in shape) throw new Error(`${operationId}'s body has a field the tool names itself`);
  return shape;
}

/** create_customer, update_customer and delete_customer: each only when the key's can_write has it. */
export const customerTools: ToolFamily = (server, { api, profile }) => {
  const can = (write: Profile['key']['can_write'][number]) => profile.key.can_write.includes(write);
  const tools: OfferedTool[] = [];

  if (can('customers.create')) {
    tools.push({
      name: 'create_customer',
      tool: server.registerTool(
        'create_customer',
        {
          title: 'Create a customer',
          description: [
            'Creates a customer in the workspace. Check first that the person is not already a customer (list_records, collection customers, email filter): an email another customer has is a conflict error.',
            'Returns the new customer as compact JSON, with its id and version.',
            'Calling again with exactly the same arguments within 24 hours creates nothing new and returns the same customer.',
            CHANGE_LOG,
          ].join(' '),
          inputSchema: bodyOf(profile, 'createCustomer'),
          annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        },
        async (args) =>
          toolResult(
            await api.write({
              method: 'POST',
              path: '/customers',
              body: args,
              idempotencyKey: derivedIdempotencyKey(profile.key.id, 'create_customer', args),
            }),
          ),
      ),
    });
  }

  if (can('customers.update')) {
    tools.push({
      name: 'update_customer',
      tool: server.registerTool(
        'update_customer',
        {
          title: 'Update a customer',
          description: [
            'Changes the fields sent of one customer; fields left out stay as they are, and null clears a field.',
            'Read the customer first (get_record) and pass its version as if_match: if anyone changed the customer since, nothing is written and the answer is a precondition_failed error.',
            'An email or phone the customer already has cannot be changed or cleared (conflict error).',
            'Returns the customer as it now is, as compact JSON.',
            CHANGE_LOG,
          ].join(' '),
          inputSchema: {
            id: customerId,
            if_match: z
              .string()
              .optional()
              .describe("The customer's version as you last read it (its version field); strongly recommended."),
            ...bodyOf(profile, 'updateCustomer'),
          },
          annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
        },
        async ({ id, if_match, ...fields }) =>
          toolResult(
            await api.write({ method: 'PATCH', path: `/customers/${segment(id)}`, body: fields, ifMatch: if_match }),
          ),
      ),
    });
  }

  if (can('customers.delete')) {
    tools.push({
      name: 'delete_customer',
      tool: server.registerTool(
        'delete_customer',
        {
          title: 'Delete a customer',
          description: [
            'Deletes one customer; their bookings, orders and tickets stay and still name the id.',
            'Only when the user clearly asked for it. Afterwards the customer is not_found for every tool (deleting again included).',
            'Returns {"id":…,"object":"customer","deleted":true}. Counts against the daily removal limit.',
            CHANGE_LOG,
          ].join(' '),
          inputSchema: { id: customerId },
          annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
        },
        async ({ id }) => toolResult(await api.write({ method: 'DELETE', path: `/customers/${segment(id)}` })),
      ),
    });
  }
  return tools;
};
