import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import {
  type Customer,
  type CustomerUpdatedEvent,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventOf,
  signWebhook,
  WebhookVerificationError,
} from 'venue-api-client';
import { describe, expect, it } from 'vitest';

/**
 * venue-api-client's verifyWebhook against the Standard Webhooks reference library: each
 * accepts what the other signs, so a receiver may use either. No server and no database:
 * signing is pure, so one run stands for both engines.
 */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const now = () => Math.floor(Date.now() / 1000);

/** The scheme as the API signs (DECISIONS "Webhooks"), written out here to test both verifiers against it. */
function sign(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

const event: WebhookEvent = {
  id: 'whe_2kXq9TzL1mWb7RcYp4Hs0000',
  object: 'webhook_event',
  type: 'customer.deleted',
  created_at: '2026-10-08T01:02:03.456Z',
  livemode: false,
  data: { object: { id: 'cus_7nH2pQ4sVw9xKb1Lm3Z000', object: 'customer', deleted: true } },
};
const body = JSON.stringify(event);

// The event types generated from the OpenAPI document's `webhooks` section narrow on `type`,
// and an update's previous_attributes holds the record's own fields (checked by the compiler).
function describeEvent(e: WebhookEvent): string {
  switch (e.type) {
    case 'customer.updated':
      return `${e.data.object.first_name}, was ${e.data.previous_attributes.first_name ?? 'the same'}`;
    case 'customer.deleted':
      return `${e.data.object.id} deleted: ${e.data.object.deleted}`;
    case 'booking.updated':
      // @ts-expect-error an import's update carries no previous values
      return e.data.previous_attributes;
    case 'webhook.test':
      return e.data.object.url;
    default:
      return e.data.object.id;
  }
}
const sameRecord: Customer = {} as CustomerUpdatedEvent['data']['object'];
const sameEvent: CustomerUpdatedEvent = {} as WebhookEventOf<'customer.updated'>;
void [sameRecord, sameEvent];

function headersFor(secret: string, payload: string | Uint8Array = body, timestamp = now(), id = event.id) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(secret, id, timestamp, payload),
  };
}

async function refusal(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  return err as WebhookVerificationError;
}

describe('verifyWebhook', () => {
  it('answers an event whose type narrows its data to that type', async () => {
    const secret = newSecret();
    const verified = await verifyWebhook(body, headersFor(secret), secret);
    expect(describeEvent(verified)).toBe('cus_7nH2pQ4sVw9xKb1Lm3Z000 deleted: true');
  });

  it('accepts what the standardwebhooks package signs, and answers the parsed event', async () => {
    const secret = newSecret();
    const at = new Date();
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, at, body),
    };
    expect(await verifyWebhook(body, headers, secret)).toEqual(event);
    // The raw bytes, and a Headers whose names came in another case.
    const bytes = new TextEncoder().encode(body);
    const fetchHeaders = new Headers(Object.entries(headers).map(([k, v]): [string, string] => [k.toUpperCase(), v]));
    expect(await verifyWebhook(bytes, fetchHeaders, secret)).toEqual(event);
    // Node's request.headers: names in lower case; a plain object in any case is read too.
    const mixed = { 'Webhook-Id': headers['webhook-id'], 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'] };
    expect(await verifyWebhook(body, { ...mixed, 'webhook-signature': headers['webhook-signature'] }, secret)).toEqual(
      event,
    );
  });

  it('signs as the standardwebhooks package verifies, and verifies the same', async () => {
    const secret = newSecret();
    const headers = headersFor(secret);
    expect(new Webhook(secret).verify(body, headers)).toEqual(event);
    expect(await verifyWebhook(body, headers, secret)).toEqual(event);
  });

  it('signWebhook signs as the API does: the scheme above, which both verifiers accept', async () => {
    const secret = newSecret();
    const timestamp = now();
    const signature = await signWebhook(body, event.id, timestamp, secret);
    expect(signature).toBe(sign(secret, event.id, timestamp, body));
    const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(new Webhook(secret).verify(body, headers)).toEqual(event);
    expect(await verifyWebhook(body, headers, secret)).toEqual(event);
    expect(await signWebhook(body, event.id, timestamp, newSecret())).not.toBe(signature);
  });

  it('accepts any of the signatures while a rotated secret still signs, and ignores other versions', async () => {
    const [old, rotated] = [newSecret(), newSecret()];
    const timestamp = now();
    const both = `${sign(old, event.id, timestamp, body)} ${sign(rotated, event.id, timestamp, body)}`;
    const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': both };
    expect(await verifyWebhook(body, headers, old)).toEqual(event);
    expect(await verifyWebhook(body, headers, rotated)).toEqual(event);
    expect(new Webhook(rotated).verify(body, headers)).toEqual(event);
    expect((await refusal(verifyWebhook(body, headers, newSecret()))).reason).toBe('no_matching_signature');
    // The same MAC labelled with another scheme's version is not a v1 signature.
    const v2 = { ...headers, 'webhook-signature': sign(old, event.id, timestamp, body).replace(/^v1,/, 'v1a,') };
    expect((await refusal(verifyWebhook(body, v2, old))).reason).toBe('no_matching_signature');
  });

  it('refuses a tampered body, another secret, and a signature of another id or timestamp', async () => {
    const secret = newSecret();
    const headers = headersFor(secret);
    const tampered = body.replace('"livemode":false', '"livemode":true');
    expect((await refusal(verifyWebhook(tampered, headers, secret))).reason).toBe('no_matching_signature');
    expect(() => new Webhook(secret).verify(tampered, headers)).toThrow();
    expect((await refusal(verifyWebhook(body, headers, newSecret()))).reason).toBe('no_matching_signature');
    const otherId = { ...headers, 'webhook-id': 'whe_another' };
    expect((await refusal(verifyWebhook(body, otherId, secret))).reason).toBe('no_matching_signature');
    const otherTime = { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) };
    expect((await refusal(verifyWebhook(body, otherTime, secret))).reason).toBe('no_matching_signature');
  });

  it('refuses a timestamp more than 5 minutes off, unless told to allow more', async () => {
    const secret = newSecret();
    const old = headersFor(secret, body, now() - 301);
    const err = await refusal(verifyWebhook(body, old, secret));
    expect(err.reason).toBe('timestamp_too_old');
    expect(err.message).toMatch(/more than the 300 s allowed/);
    expect(() => new Webhook(secret).verify(body, old)).toThrow();
    expect(await verifyWebhook(body, old, secret, { toleranceSeconds: 3600 })).toEqual(event);
    const ahead = headersFor(secret, body, now() + 301);
    expect((await refusal(verifyWebhook(body, ahead, secret))).reason).toBe('timestamp_too_new');
    expect(await verifyWebhook(body, headersFor(secret, body, now() - 240), secret)).toEqual(event);
    const garbled = { ...headersFor(secret), 'webhook-timestamp': '17e8' };
    expect((await refusal(verifyWebhook(body, garbled, secret))).reason).toBe('invalid_timestamp');
  });

  it('refuses a request without each of the three headers, naming the missing one', async () => {
    const secret = newSecret();
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const headers: Record<string, string> = headersFor(secret);
      delete headers[name];
      const err = await refusal(verifyWebhook(body, headers, secret));
      expect(err.reason).toBe('missing_header');
      expect(err.message).toContain(name);
      expect((await refusal(verifyWebhook(body, new Headers(headers), secret))).reason).toBe('missing_header');
    }
  });

  it('tells a secret that is not base64, and a signed body that is not JSON, apart', async () => {
    expect((await refusal(verifyWebhook(body, headersFor(newSecret()), 'whsec_not base64!'))).reason).toBe(
      'invalid_secret',
    );
    const secret = newSecret();
    const text = 'not json';
    expect((await refusal(verifyWebhook(text, headersFor(secret, text), secret))).reason).toBe('invalid_payload');
  });

  it('round-trips any JSON payload and any secret with the standardwebhooks package, both ways', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.stringMatching(/^[\w-]{1,40}$/),
        async (value, key, id) => {
          const secret = `whsec_${Buffer.from(key).toString('base64')}`;
          const payload = JSON.stringify(value);
          const at = new Date();
          const theirs = {
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new Webhook(secret).sign(id, at, payload),
          };
          const expected = JSON.parse(payload) as unknown;
          expect(await verifyWebhook(payload, theirs, secret)).toEqual(expected);
          expect(await verifyWebhook(new TextEncoder().encode(payload), theirs, secret)).toEqual(expected);
          const ours = headersFor(secret, payload, Math.floor(at.getTime() / 1000), id);
          expect(new Webhook(secret).verify(payload, ours)).toEqual(expected);
          expect(ours['webhook-signature']).toBe(theirs['webhook-signature']);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses any change of a single byte of the body', async () => {
    const secret = newSecret();
    const bytes = new TextEncoder().encode(body);
    const headers = headersFor(secret, bytes);
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), async (at, flip) => {
        const changed = bytes.slice();
        changed[at]! ^= flip;
        expect((await refusal(verifyWebhook(changed, headers, secret))).reason).toBe('no_matching_signature');
      }),
      { numRuns: 100 },
    );
  });
});
