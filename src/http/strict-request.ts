import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { invalid } from '../errors.ts';

/**
 * What a request's head must be before its route reads it, checked once for every request:
 * - a header that holds one value sent twice is a 400. Node keeps the first and drops the
 *   rest, so a proxy and this server could each believe another. Authorization is checked
 *   by auth itself, before the key is looked up (src/http/auth.ts); the rest here, after
 *   the limit check, so such a 400 to a valid key tells its allowance like any answer.
 * - the query string's percent-escapes must spell well-formed UTF-8: a malformed one is a
 *   400, not text stored with U+FFFD in it.
 */
const SINGLE_VALUED = new Set(['authorization', 'idempotency-key', 'service-version', 'content-type', 'if-none-match']);

/** Throws a 400 naming the first of `names` (lower case) the raw headers hold twice. */
export function refuseRepeatedHeaders(rawHeaders: string[], names: ReadonlySet<string> = SINGLE_VALUED): void {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!names.has(name)) continue;
    if (seen.has(name)) {
      const sent = rawHeaders[i]!;
      throw invalid(`The ${sent} header may be sent once; this request sends it more than once.`, [
        { field: sent, message: 'is sent more than once' },
      ]);
    }
    seen.add(name);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a query string decodes to well-formed UTF-8 (percent-escapes and any raw bytes). */
function wellFormedQuery(query: string): boolean {
  // Node hands over the request target's bytes as latin1 characters; most are plain ASCII.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: any byte outside ASCII
  if (/[^\x00-\x7f]/.test(query)) {
    try {
      utf8.decode(Buffer.from(query, 'latin1'));
    } catch {
      return false;
    }
  }
  if (!query.includes('%')) return true;
  try {
    decodeURIComponent(query.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
}

export const strictRequest = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, _reply, done) => {
    refuseRepeatedHeaders(request.raw.rawHeaders);
    const url = request.raw.url ?? '';
    const q = url.indexOf('?');
    if (q !== -1 && !wellFormedQuery(url.slice(q + 1))) {
      throw invalid('The query string is not well-formed: each %-escape must spell UTF-8 text.', [
        { field: 'query', message: 'is not well-formed percent-encoded UTF-8' },
      ]);
    }
    done();
  });
});
