import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/schema.ts';
import { actorOf } from '../../http/caller.ts';
import { etagOf, notModified } from '../../http/etag.ts';
import { sendJsonText } from '../../http/json-text.ts';
import { ErrorResponses, IdParams } from '../../http/schemas.ts';
import { webhookEventSchema } from './event.schema.ts';
import { ListEnvelope, PageQuery } from '../wire.schema.ts';
import { FEED_TYPES, getEvent, listEvents } from './event-feed.service.ts';

const ABOUT =
  'Every change to the records this key may read, in its own mode, as the `webhook_event` a webhook delivery carries (the same id and payload), whether or not an endpoint took it; masked as this key sees records. Kept `EVENT_RETENTION_DAYS` (365 by default). `webhook.test` events are deliveries only, never here.';

const FeedQuery = Type.Object(
  {
    limit: PageQuery.limit,
    starting_after: PageQuery.starting_after,
    type: Type.Optional(
      Type.String({ maxLength: 1024, description: `One or more types, comma-separated: ${FEED_TYPES.join(', ')}.` }),
    ),
    created_since: Type.Optional(
      Type.String({ maxLength: 64, description: 'ISO 8601 with an offset: events made at or after it.' }),
    ),
  },
  { additionalProperties: false },
);

/** GET /webhook-events and GET /webhook-events/{id} (DECISIONS "Events feed"): any key, read or read and write. */
export async function webhookEventRoutes(instance: FastifyInstance, { db }: { db: Db }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const WebhookEvent = webhookEventSchema();
  app.get(
    '/webhook-events',
    {
      config: { access: { kind: 'any-key' } },
      schema: {
        tags: ['Events feed'],
        summary: 'List events',
        description: `${ABOUT}\n\nNewest first, \`limit\` a page (1 to 100, default 25); pass \`next_cursor\` as \`starting_after\` for the next page. \`created_since\` keeps the events made at or after that instant: a receiver back from downtime asks from the last event it handled.`,
        querystring: FeedQuery,
        response: { 200: ListEnvelope(WebhookEvent), ...ErrorResponses },
      },
    },
    async (request, reply) =>
      sendJsonText(request, reply, await listEvents(db, actorOf(request), request.key!.canRead, request.query)),
  );
  app.get(
    '/webhook-events/:id',
    {
      config: { access: { kind: 'any-key' } },
      schema: {
        tags: ['Events feed'],
        summary: 'Retrieve an event',
        description: `${ABOUT}\n\nAn event this key may not see is 404. An event never changes: its \`ETag\` is its id, and \`If-None-Match\` with it is a 304.`,
        params: IdParams,
        response: { 200: WebhookEvent, 304: Type.Null({ description: 'Not modified' }), ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const event = await getEvent(db, actorOf(request), request.key!.canRead, request.params.id);
      reply.header('ETag', etagOf(request.params.id));
      if (notModified(request.headers['if-none-match'], request.params.id)) return reply.code(304).send(null);
      return sendJsonText(request, reply, event);
    },
  );
}
