import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { RECORD_KINDS } from '../../import/record-kinds.ts';
import { Customer, DeletedCustomer } from '../customers/customer.schema.ts';
import { IdOf, Instant } from '../wire.schema.ts';

// Every webhook event payload the API sends (DECISIONS "Webhooks") as TypeBox schemas, for the OpenAPI document's
// `webhooks` section, from which venue-api-client's event types are generated.

function EventOf(type: string, object: TSchema, previous?: TObject) {
  const before = "The changed top-level fields' values before the change.";
  // The changed fields only, each in the record's own shape.
  const changed = previous && { previous_attributes: Type.Partial(previous, { description: before }) };
  return Type.Object(
    {
      id: { ...IdOf('whe'), description: 'The event id; also the `webhook-id` header, the same on every attempt.' },
      object: Type.Literal('webhook_event', { description: 'Always `webhook_event`.' }),
      type: Type.Literal(type, { description: 'What happened.' }),
      created_at: { ...Instant, description: 'When the change was made; receivers order events by it.' },
      livemode: Type.Boolean({ description: 'true for a live change, false for a test one.' }),
      data: Type.Object({ object, ...changed }, { description: 'The record after the change.' }),
    },
    { title: eventName(type), description: `The \`${type}\` event.` },
  );
}

/** `gift_card.updated` is named `GiftCardUpdatedEvent` in the document and in generated clients. */
const eventName = (type: string) =>
  `${type.replace(/(^|[._])([a-z])/g, (_, __, letter: string) => letter.toUpperCase())}Event`;

const described = (schema: TSchema, description: string): TSchema => ({ ...schema, description });

/** The read-only collections whose records an import writes (their schemas are the import's). */
const IMPORTED = [
  'booking',
  'order',
  'ticket',
  'gift_card',
  'venue',
  'activity',
  'package',
  'event',
  'list',
  'tag',
] as const;

const TEST_OBJECT = Type.Object(
  {
    id: Type.String({ description: 'The endpoint the test was sent to.' }),
    object: Type.Literal('webhook_endpoint', { description: 'Always `webhook_endpoint`.' }),
    url: Type.String({ description: "The endpoint's URL." }),
  },
  { description: 'The endpoint.' },
);
const customer = described(Customer, 'The customer as GET showed it right after.');

/** Each event type, what happened, and its `data.object` (with `previous_attributes` of the last shape). */
const WEBHOOK_EVENTS: [type: string, summary: string, object: TSchema, previous?: TObject][] = [
  ['customer.created', 'A customer was created (or restored)', customer],
  ['customer.updated', 'A customer changed: a field, a tag or a list membership', customer, Customer],
  ['customer.deleted', 'A customer was deleted', described(DeletedCustomer, 'The deleted shape.')],
  // An import's records, as it wrote them: no previous values.
  ...IMPORTED.flatMap((name): [string, string, TSchema][] => {
    const noun = name.replace('_', ' ');
    const what = `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${noun}`;
    const object = described(
      RECORD_KINDS[name].schema,
      `The ${noun} as the import wrote it, in the shape GET answers.`,
    );
    return [
      [`${name}.created`, `An import added ${what}`, object],
      [`${name}.updated`, `An import replaced ${what}`, object],
    ];
  }),
  ['webhook.test', 'A test event, sent from the console or the CLI', TEST_OBJECT],
];

/** Every event type an endpoint may subscribe to (and `webhook.test`, which every endpoint takes). */
export const EVENT_TYPES: readonly string[] = WEBHOOK_EVENTS.map(([type]) => type);

/** The document's `webhooks` section: one POST per event type. */
export function webhooksDocument(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENTS.map(([type, summary, object, previous]) => [
      type,
      {
        post: {
          operationId: `webhook_${type.replace('.', '_')}`,
          summary,
          description: `Sent as a Standard Webhooks delivery (headers \`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature\`). ${summary}.`,
          security: [],
          requestBody: { required: true, content: { 'application/json': { schema: EventOf(type, object, previous) } } },
          responses: {
            '200': { description: 'Any 2xx answer within 10 s is a delivery; anything else is retried.' },
            '400': { description: 'Not a delivery: it is retried on the schedule, then failed.' },
          },
        },
      },
    ]),
  );
}

/** The events feed's `webhook_event`: any of its types (every type but `webhook.test`). */
export function webhookEventSchema(): TSchema {
  const types = WEBHOOK_EVENTS.filter(([type]) => type !== 'webhook.test');
  return Type.Union(
    types.map(([type, , object, previous]) => EventOf(type, object, previous)),
    { title: 'WebhookEvent', description: 'An event: the same object a webhook delivery carries.' },
  );
}
