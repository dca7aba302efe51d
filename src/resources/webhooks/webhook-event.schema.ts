import { type TSchema, Type } from '@sinclair/typebox';
import { Customer, DeletedCustomer } from '../customers/customer.schema.ts';
import { Instant } from '../wire.schema.ts';

/**
 * The webhook event payloads (DECISIONS "Webhooks") as TypeBox schemas, for the OpenAPI
 * document's `webhooks` section (src/http/openapi.ts).
 */
function EventOf(type: string, object: TSchema, withPrevious: boolean) {
  return Type.Object(
    {
      id: Type.String({
        pattern: '^whe_[0-9A-Za-z]{22}$',
        description: 'The event id; also the `webhook-id` header, the same on every attempt.',
      }),
      object: Type.Literal('webhook_event', { description: 'Always `webhook_event`.' }),
      type: Type.Literal(type, { description: 'What happened.' }),
      created_at: { ...Instant, description: 'When the change was made; receivers order events by it.' },
      livemode: Type.Boolean({ description: 'true for a live change, false for a test one.' }),
      data: Type.Object(
        {
          object: object,
          ...(withPrevious
            ? {
                previous_attributes: Type.Record(Type.String(), Type.Unknown(), {
                  description: "The changed top-level fields' values before the change.",
                }),
              }
            : {}),
        },
        { description: 'The record after the change.' },
      ),
    },
    { description: `The \`${type}\` event.` },
  );
}

const described = (schema: TSchema, description: string): TSchema => ({ ...schema, description });

export const WEBHOOK_EVENTS: Record<string, { summary: string; schema: TSchema }> = {
  'customer.created': {
    summary: 'A customer was created (or restored)',
    schema: EventOf('customer.created', described(Customer, 'The customer as GET showed it right after.'), false),
  },
  'customer.updated': {
    summary: 'A customer changed: a field, a tag or a list membership',
    schema: EventOf('customer.updated', described(Customer, 'The customer as GET showed it right after.'), true),
  },
  'customer.deleted': {
    summary: 'A customer was deleted',
    schema: EventOf('customer.deleted', described(DeletedCustomer, 'The deleted shape.'), false),
  },
  'webhook.test': {
    summary: 'A test event, sent from the console or the CLI',
    schema: EventOf(
      'webhook.test',
      Type.Object(
        {
          id: Type.String({ description: 'The endpoint the test was sent to.' }),
          object: Type.Literal('webhook_endpoint', { description: 'Always `webhook_endpoint`.' }),
          url: Type.String({ description: "The endpoint's URL." }),
        },
        { description: 'The endpoint.' },
      ),
      false,
    ),
  },
};

/** The document's `webhooks` section: one POST per event type. */
export function webhooksDocument(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENTS).map(([type, { summary, schema }]) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary,
          description: `Sent as a Standard Webhooks delivery (headers \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`). ${summary}.`,
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema } } },
          responses: {
            '200': { description: 'Any 2xx answer within 10 s is a delivery; anything else is retried.' },
            '400': { description: 'Not a delivery: it is retried on the schedule, then failed.' },
          },
        },
      },
    ]),
  );
}
