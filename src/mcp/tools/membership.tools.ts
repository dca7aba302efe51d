import { z } from 'zod';
import { toolResult } from '../answers.ts';
import { derivedIdempotencyKey } from '../idempotency.ts';
import { type OfferedTool, segment, type ToolContext, type ToolFamily } from './context.ts';

interface Membership {
  /** The can_write entry that allows it (DECISIONS "Keys"). */
  write: 'customers.tags' | 'customers.lists';
  /** Body member and path part of the API: POST /customers/{id}/tags {tag}, DELETE …/tags/{tagId}. */
  member: 'tag' | 'list';
  path: 'tags' | 'lists';
  prefix: string;
  add: { name: string; title: string; description: string };
  remove: { name: string; title: string; description: string };
}

const FAMILIES: Membership[] = [
  {
    write: 'customers.tags',
    member: 'tag',
    path: 'tags',
    prefix: 'tag_',
    add: {
      name: 'add_customer_tag',
      title: 'Tag a customer',
      description:
        'Adds an existing tag to a customer (find tag ids with list_records, collection tags; this API cannot make new tags). Tagging a customer who already has the tag is not an error.',
    },
    remove: {
      name: 'remove_customer_tag',
      title: 'Untag a customer',
      description: 'Removes a tag from a customer. Removing a tag the customer does not have is not an error.',
    },
  },
  {
    write: 'customers.lists',
    member: 'list',
    path: 'lists',
    prefix: 'lst_',
    add: {
      name: 'add_customer_to_list',
      title: 'Add a customer to a list',
      description:
        'Adds a customer to an existing list (find list ids with list_records, collection lists); a customer who had left the list is put back as active.',
    },
    remove: {
      name: 'remove_customer_from_list',
      title: 'Remove a customer from a list',
      description: 'Removes a customer from a list (the membership is gone, not marked unsubscribed).',
    },
  },
];

const TAIL =
  'Returns the customer as it now is, as compact JSON. Recorded against this key; a person can undo it from the developer settings.';

function register(server: Parameters<ToolFamily>[0], { api, profile }: ToolContext, m: Membership): OfferedTool[] {
  const shape = {
    customer: z.string().min(1).max(100).describe('The customer id, cus_….'),
    [m.member]: z.string().min(1).max(100).describe(`The ${m.member} id, ${m.prefix}….`),
  } as { customer: z.ZodString } & Record<string, z.ZodString>;
  const add = server.registerTool(
    m.add.name,
    {
      title: m.add.title,
      description: `${m.add.description} ${TAIL}`,
      inputSchema: shape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      // The customer's version joins the derived key: the same call on the same customer is
      // one write, but after the tag or list was removed (the version moved on) adding it
      // again is a new write, not a replay of the first answer. Every key that may write
      // memberships may read customers (the key service requires it).
      const path = `/customers/${segment(args.customer)}`;
      const current = await api.read(path);
      if (current.kind !== 'ok') return toolResult(current);
      const version = (current.body as { version?: unknown }).version;
      return toolResult(
        await api.write({
          method: 'POST',
          path: `${path}/${m.path}`,
          body: { [m.member]: args[m.member] },
          idempotencyKey: derivedIdempotencyKey(profile.key.id, m.add.name, { ...args, version }),
        }),
      );
    },
  );
  const remove = server.registerTool(
    m.remove.name,
    {
      title: m.remove.title,
      description: `${m.remove.description} Counts against the daily removal limit. ${TAIL}`,
      inputSchema: shape,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) =>
      toolResult(
        await api.write({
          method: 'DELETE',
          path: `/customers/${segment(args.customer)}/${m.path}/${segment(args[m.member]!)}`,
        }),
      ),
  );
  return [
    { name: m.add.name, tool: add },
    { name: m.remove.name, tool: remove },
  ];
}

/** Tag and list membership tools, each pair only when the key's can_write has its entry. */
export const membershipTools: ToolFamily = (server, context) =>
  FAMILIES.filter((m) => context.profile.key.can_write.includes(m.write)).flatMap((m) => register(server, context, m));
