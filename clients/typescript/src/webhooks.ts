import type { WebhookEvent } from './webhook-events.ts';

/**
 * Verifying a delivery as the Standard Webhooks specification (version 1) says, the scheme the
 * API signs with, so this and any of that specification's libraries accept the same requests.
 * Web Crypto only (`globalThis.crypto.subtle`): it runs in Node 20+, Deno, Bun, workers and
 * browsers, like the rest of the client.
 */

/** A request's headers: a `Headers`, or a plain object such as Node's `request.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /**
   * How far `webhook-timestamp` may be from now, either way, in seconds (default 300). The
   * timestamp is signed, so a captured request cannot be replayed after this long.
   */
  toleranceSeconds?: number;
}

/** Why a delivery was refused: log it, answer 400, and do not act on the body. */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'invalid_secret'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_payload';

/** The request is not a delivery signed with this secret (or not a fresh one). */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';
const HEADER_NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
const HMAC_SHA256 = { name: 'HMAC', hash: 'SHA-256' } as const;
const encoder = new TextEncoder();

/**
 * Checks a delivery's `webhook-signature` against `secret` (the endpoint's `whsec_…`) and its
 * `webhook-timestamp` against the clock, then answers the parsed event. `payload` must be the
 * body exactly as received: a body parsed and serialised again no longer matches its signature.
 * Any one of the header's `v1,` signatures may match: while a secret is being rotated, the
 * old and the new secret both sign. Throws a `WebhookVerificationError` otherwise.
 */
export async function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(tolerance >= 0)) throw new RangeError('toleranceSeconds must be a number of seconds, 0 or more.');
  const values = HEADER_NAMES.map((name) => headerOf(headers, name));
  const absent = HEADER_NAMES.filter((_, i) => !values[i]);
  if (absent.length > 0) {
    throw new WebhookVerificationError('missing_header', `The request has no ${absent.join(', ')} header.`);
  }
  const [id, timestamp, signatures] = values as [string, string, string];
  checkTimestamp(timestamp, tolerance);

  const expected = await hmac(secret, id, timestamp, payload);
  const matches = signatures
    .split(' ')
    .map((entry) => entry.split(','))
    .some(
      ([version, signature]) =>
        version === 'v1' && signature !== undefined && equalBytes(fromBase64(signature), expected),
    );
  if (!matches) {
    throw new WebhookVerificationError(
      'no_matching_signature',
      "No signature in webhook-signature matches this secret: check that the secret is this endpoint's, and that the payload is the raw body as received, not parsed and serialised again.",
    );
  }

  try {
    return JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The signed payload is not JSON.');
  }
}

/**
 * The `webhook-signature` value the API sends: `v1,` and the base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<payload>` keyed by the secret's decoded bytes. `venue-api-client listen`
 * signs what it forwards with it; a receiver's tests may sign their own deliveries.
 */
export async function signWebhook(
  payload: string | Uint8Array,
  id: string,
  timestamp: number,
  secret: string,
): Promise<string> {
  const mac = await hmac(secret, id, String(timestamp), payload);
  return `v1,${btoa(String.fromCharCode(...mac))}`;
}

async function hmac(secret: string, id: string, timestamp: string, payload: string | Uint8Array) {
  const key = await crypto.subtle.importKey('raw', secretBytes(secret), HMAC_SHA256, false, ['sign']);
  const body = typeof payload === 'string' ? encoder.encode(payload) : payload;
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, concat(encoder.encode(`${id}.${timestamp}.`), body)));
}

/** A header's value by its name in any case; a repeated one's values joined by spaces. */
function headerOf(headers: WebhookHeaders, name: string): string | null {
  if (typeof headers.get === 'function') return (headers as Headers).get(name);
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name && value !== undefined) return Array.isArray(value) ? value.join(' ') : value;
  }
  return null;
}

function checkTimestamp(value: string, tolerance: number): void {
  if (!/^\d{1,15}$/.test(value.trim())) {
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not a number of Unix seconds.');
  }
  const age = Math.floor(Date.now() / 1000) - Number(value);
  if (age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `webhook-timestamp is ${age} s old, more than the ${tolerance} s allowed: a replay, or this host's clock is wrong.`,
    );
  }
  if (-age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_new',
      `webhook-timestamp is ${-age} s ahead, more than the ${tolerance} s allowed: this host's clock is wrong.`,
    );
  }
}

/** The key's bytes: the secret without its `whsec_` prefix, base64-decoded. */
function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const base64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = fromBase64(base64);
  if (bytes === null || bytes.length === 0) {
    throw new WebhookVerificationError('invalid_secret', 'The secret is not `whsec_` followed by base64.');
  }
  return bytes;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Constant time in the bytes' content, so a forger learns nothing from how long a refusal takes. */
function equalBytes(a: Uint8Array | null, b: Uint8Array): boolean {
  if (a === null || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
