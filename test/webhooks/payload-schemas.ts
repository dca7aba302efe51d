import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { TestApp } from '../helpers/app.ts';

type Webhooks = Record<string, { post: { requestBody: { content: Record<string, { schema: object }> } } }>;

/**
 * Checks event payloads against the served OpenAPI document's `webhooks` section, the
 * schemas venue-api-client's event types are generated from: answers what does not match
 * (an empty list when every payload does), naming a type the document lacks too.
 */
export async function payloadChecker(t: TestApp): Promise<(bodies: readonly any[]) => string[]> {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    webhooks: Webhooks;
    components: object;
  };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // The event schemas refer to the document's named ones (Customer, …).
  ajv.addSchema({ components: doc.components }, 'openapi');
  const inDocument = (schema: object) =>
    JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/')) as object;
  const validators = new Map(
    Object.entries(doc.webhooks).map(([type, hook]) => [
      type,
      ajv.compile(inDocument(hook.post.requestBody.content['application/json']!.schema)),
    ]),
  );
  return (bodies) =>
    bodies.flatMap((body) => {
      const validate = validators.get(body?.type);
      if (!validate) return [`${body?.type}: no such event type in the document`];
      return validate(body) ? [] : [`${body.type}: ${ajv.errorsText(validate.errors)}`];
    });
}
