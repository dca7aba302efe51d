import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { invalid } from '../errors.ts';

/**
 * What a request's head must be before anything reads it (docs/behaviour.md), checked
 * once for every request:
 * - a header that holds one value (Authorization above all) sent twice is a 400. Node keeps
 *   the first and drops the rest, so a proxy and this server could each believe another.
 * - the query string's percent-escapes must spell well-formed UTF-8: a malformed one is a
 *   400, not text stored with U+FFFD in it.
 */
const SINGLE_VALUED = new Set(['authorization', 'idempotency-key', 'service-version', 'content-type', 'if-none-match']);

function repeatedHeader(rawHeaders: string[]): string | null {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!SINGLE_VALUED.has(name)) continue;
    if (seen.has(name)) return rawHeaders[i]!;
    seen.add(name);
  }
  return null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a query string decodes to well-formed UTF-8 (percent-escapes and any raw bytes). */
export function wellFormedQuery(query: string): boolean {
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
  app.addHook('onRequest', async (request) => {
    const repeated = repeatedHeader(request.raw.rawHeaders);
    if (repeated !== null) {
      throw invalid(`The ${repeated} header may be sent once; this request sends it more than once.`, [
        { field: repeated, message: 'is sent more than once' },
      ]);
    }
    const url = request.raw.url ?? '';
    const q = url.indexOf('?');
    if (q !== -1 && !wellFormedQuery(url.slice(q + 1))) {
      throw invalid('The query string is not well-formed: each %-escape must spell UTF-8 text.', [
        { field: 'query', message: 'is not well-formed percent-encoded UTF-8' },
      ]);
    }
  });
});
