import { createHash } from 'node:crypto';
import { canonicalJson } from '../lib/canonical-json.ts';

/**
 * The Idempotency-Key of a write, derived from the call itself: the key's id, the tool and
 * its arguments in canonical JSON. An agent that repeats an identical call (a retry after a
 * lost answer, a loop) gets the API's stored answer back instead of a second write, for as
 * long as the API keeps it (24 hours, DECISIONS "Idempotency"); a call that differs in any
 * argument is a new write. Hashed, so the header says nothing about the customer it writes.
 */
export function derivedIdempotencyKey(keyId: string, tool: string, args: unknown): string {
  // JSON round trip first: an argument given as undefined is the same call as one left out.
  const canonical = canonicalJson(JSON.parse(JSON.stringify(args ?? {})));
  return `mcp_${createHash('sha256').update(`${keyId}\n${tool}\n${canonical}`).digest('hex')}`;
}
