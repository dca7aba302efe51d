import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { literalAddress, refusedAddress } from '../lib/webhook-address.ts';
import { MAX_PAYLOAD_BYTES } from '../resources/webhook-events/event.repo.ts';

// One attempt to post a webhook (DECISIONS "Webhooks"): no redirect followed, 10 s in all, at most 256 KiB sent
// and 4 KiB read; the address is checked after DNS, in the socket's own look-up.

export const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 4 * 1024;

export type AttemptResult = { ok: boolean; status: number | null; error: string | null };
type SendOptions = { allowPrivate: boolean; timeoutMs?: number };
/** An attempt's result, and whether it failed on a kept-alive connection the receiver had closed. */
type Sent = { result: AttemptResult; staleConnection: boolean };

// Connections are kept alive (a handshake is most of an attempt's cost), one pool per address policy, so one made
// with private addresses allowed never serves one where they are not. Idle ones close before the usual server's
// keep-alive timeout (Node's is 5 s).
const agents = new Map<string, http.Agent>();

function agentFor(protocol: string, allowPrivate: boolean): http.Agent {
  const key = `${protocol}${allowPrivate}`;
  const options = { keepAlive: true, timeout: 4_000, scheduling: 'lifo' as const };
  if (!agents.has(key)) agents.set(key, protocol === 'https:' ? new https.Agent(options) : new http.Agent(options));
  return agents.get(key)!;
}

/** A look-up that refuses what it resolves to when that is not a public address. */
const guardedLookup = ((hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err);
    // The attempt's error never names the address: an endpoint's owner would learn the API's own network.
    if (addresses.some((a) => refusedAddress(a.address) !== null))
      return callback(new Error(`refused at connect: ${hostname} resolved to a private address`));
    return options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}) as LookupFunction;

export async function postWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SendOptions,
): Promise<AttemptResult> {
  const bytes = Buffer.byteLength(body);
  if (bytes > MAX_PAYLOAD_BYTES) return { ok: false, status: null, error: `payload of ${bytes} bytes is over 256 KiB` };
  const url = new URL(target);
  // An address literal is never looked up, so it is checked here.
  const literal = options.allowPrivate ? null : literalAddress(url);
  const why = literal === null ? null : refusedAddress(literal);
  if (why) return { ok: false, status: null, error: `refused at connect: ${why}` };
  const sent = { ...headers, 'content-length': String(bytes), 'user-agent': 'venue-api-webhooks/1' };
  const first = await postOnce(url, body, sent, options);
  // A kept-alive connection the receiver closed as it was reused fails before any answer: the
  // request is sent again once, on a new connection (a duplicate is harmless: receivers dedupe).
  return first.staleConnection ? (await postOnce(url, body, sent, options)).result : first.result;
}

function postOnce(url: URL, body: string, headers: Record<string, string>, options: SendOptions): Promise<Sent> {
  const client = url.protocol === 'https:' ? https : http;
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  return new Promise((resolve) => {
    let answered = false;
    // The first way the attempt ends settles it; the others that follow change nothing.
    const finish = (result: AttemptResult, staleConnection = false) => {
      clearTimeout(timer);
      resolve({ result, staleConnection });
    };
    const agent = agentFor(url.protocol, options.allowPrivate);
    const lookup = options.allowPrivate ? {} : { lookup: guardedLookup };
    const request = client.request(url, { method: 'POST', headers, agent, ...lookup }, (response) => {
      answered = true;
      const status = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        // Only so much of an answer is read: a receiver's body tells us nothing we keep.
        if (read >= MAX_ANSWER_BYTES) response.destroy();
      });
      const ok = status >= 200 && status < 300;
      const redirect = status >= 300 && status < 400;
      const error = ok ? null : redirect ? `redirect (${status}) not followed` : `answered ${status}`;
      for (const end of ['end', 'close', 'error']) response.on(end, () => finish({ ok, status, error }));
    });
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) => {
      const stale = request.reusedSocket && !answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      finish({ ok: false, status: null, error: err.message.slice(0, 500) }, stale);
    });
    request.end(body);
  });
}
