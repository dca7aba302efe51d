import { z } from 'zod';
import { errorResult, toolResult } from '../answers.ts';
import { segment, type ToolFamily } from './context.ts';

/**
 * list_records and get_record over every collection the key may read (its `can_read`),
 * with each collection's own filters as `/openapi.json` declares them.
 */
export const readTools: ToolFamily = (server, { api, profile }) => {
  const readable = profile.key.can_read;
  if (readable.length === 0) return [];
  const collection = z.enum(readable as [string, ...string[]]);
  const { page_size_default: pageDefault, page_size_max: pageMax } = profile.key.limits;

  // One optional argument per filter name; a name several collections share is one argument.
  const byName = new Map<string, Array<{ collection: string; description: string }>>();
  for (const name of readable) {
    for (const filter of profile.document.filters[name] ?? []) {
      byName.set(filter.name, [
        ...(byName.get(filter.name) ?? []),
        { collection: name, description: filter.description },
      ]);
    }
  }
  const filterShape: Record<string, z.ZodOptional<z.ZodString>> = {};
  for (const [name, uses] of byName) {
    const same = uses.every((u) => u.description === uses[0]!.description);
    const meaning = same ? uses[0]!.description : uses.map((u) => `${u.collection}: ${u.description}`).join(' ');
    const where = uses.map((u) => u.collection).join(' or ');
    filterShape[name] = z.string().optional().describe(`Filter, only with collection ${where}. ${meaning}`);
  }

  const list = server.registerTool(
    'list_records',
    {
      title: 'List records',
      description: [
        'Lists one page of records of a collection of the Venue workspace, newest first.',
        'Use it to browse or search (with a filter such as email for customers), or to find an id for get_record or a write.',
        'Returns compact JSON {"object":"list","data":[…],"has_more":…,"next_cursor":…}. While has_more is true, call again with the same arguments and starting_after set to next_cursor to get the next page.',
        `Collections this key can read: ${readable.join(', ')}.`,
        profile.key.contacts_masked
          ? "This key's contacts are masked: emails and phones show only a few characters."
          : '',
      ]
        .filter(Boolean)
        .join(' '),
      inputSchema: {
        collection: collection.describe('The collection to list.'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(pageMax)
          .optional()
          .describe(`Records per page, 1 to ${pageMax}; default ${pageDefault}.`),
        starting_after: z
          .string()
          .optional()
          .describe('The next_cursor of the previous page of the same list; omit for the first page.'),
        updated_since: z
          .string()
          .optional()
          .describe(
            'Only records changed at or after this instant: ISO 8601 with an offset, e.g. 2026-10-01T00:00:00Z.',
          ),
        ...filterShape,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const { collection: name, ...query } = args as { collection: string } & Record<
        string,
        string | number | undefined
      >;
      // Filters are one flat set of arguments; say which collection takes one rather than
      // letting the API call it an unknown query parameter.
      const own = new Set((profile.document.filters[name] ?? []).map((f) => f.name));
      const stray = Object.keys(query).filter((k) => byName.has(k) && !own.has(k) && query[k] !== undefined);
      if (stray.length > 0) {
        const filters = own.size > 0 ? `its filters are ${[...own].join(', ')}` : 'it takes no filter';
        return errorResult(
          `${stray.join(', ')} cannot filter ${name} (${filters}).\nWhat to do: call again without ${stray.join(', ')}, or with the collection that takes it.`,
        );
      }
      return toolResult(await api.read(`/${name}`, query));
    },
  );

  const get = server.registerTool(
    'get_record',
    {
      title: 'Get one record',
      description: [
        'Gets one record of a collection by its id (for example cus_… in customers, bkg_… in bookings).',
        "Use it to read a record in full, or to read a customer's current version before update_customer.",
        'Returns the record as compact JSON. An id that does not exist, or that this key cannot see, is a not_found error.',
      ].join(' '),
      inputSchema: {
        collection: collection.describe('The collection the record belongs to.'),
        id: z.string().min(1).max(100).describe('The record id, e.g. cus_3kTMd8bYw2ZqB1nVx7Lp9A.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ collection: name, id }) => toolResult(await api.read(`/${name}/${segment(id)}`)),
  );
  return [
    { name: 'list_records', tool: list },
    { name: 'get_record', tool: get },
  ];
};
