import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { literalAddress, refusedAddress } from '../lib/webhook-address.ts';
import { MAX_PAYLOAD_BYTES } from '../resources/webhooks/webhook.model.ts';

/**
 * One attempt to post a webhook (DECISIONS "Webhooks") with undici: no redirect followed, 10 s
 * in all, at most 256 KiB sent and 4 KiB read; the address is checked after DNS, at connect.
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 4 * 1024;

export type AttemptResult = { ok: boolean; status: number | null; error: string | null };

interface SendOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
}

/**
 * Connections are kept alive (a handshake is most of an attempt's cost), one pool per address
 * policy, so a connection made with private addresses allowed never serves one where they are
 * not. Idle ones close before the usual server's keep-alive timeout (Node's is 5 s).
 */
const agents = new Map<boolean, Agent>();

function agentFor(allowPrivate: boolean): Agent {
  let agent = agents.get(allowPrivate);
  if (!agent) {
    agent = new Agent({ keepAliveTimeout: 4_000, connect: allowPrivate ? {} : { lookup: guardedLookup } });
    agents.set(allowPrivate, agent);
  }
  return agent;
}

/** A look-up that refuses what it resolves to when that is not a public address. */
const guardedLookup = ((hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err);
    // The attempt's error never names the address: an endpoint's owner would learn the API's own network.
    if (addresses.some((a) => refusedAddress(a.address) !== null))
      return callback(new Error(`refused at connect: ${hostname} resolved to a private address`));
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
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
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const post = () =>
    request(url, {
      method: 'POST',
      headers: { ...headers, 'user-agent': 'venue-api-webhooks/1' },
      body,
      dispatcher: agentFor(options.allowPrivate),
      signal,
    });
  try {
    // A kept-alive connection the receiver closed as it was reused fails before any answer: the
    // request is sent again once, on a new connection (a duplicate is harmless: receivers dedupe).
    const answer = await post().catch((err: { code?: string }) => {
      if (err.code === 'UND_ERR_SOCKET' || err.code === 'ECONNRESET') return post();
      throw err;
    });
    // Only so much of an answer is read: a receiver's body tells us nothing we keep.
    await answer.body.dump({ limit: MAX_ANSWER_BYTES }).catch(() => undefined);
    const status = answer.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status, error: null };
    const redirect = status >= 300 && status < 400;
    return { ok: false, status, error: redirect ? `redirect (${status}) not followed` : `answered ${status}` };
  } catch (err) {
    const error = signal.aborted ? `no answer within ${timeoutMs / 1000} s` : String((err as Error).message);
    return { ok: false, status: null, error: error.slice(0, 500) };
  }
}
