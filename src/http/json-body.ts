import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, invalid } from '../errors.ts';
import { jsonDepthOver, MAX_JSON_DEPTH } from '../lib/json-depth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body's text as it arrived, once read as UTF-8 (the request log keeps it). */
    bodyText: string | null;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The charset parameter of a Content-Type, lower-cased and unquoted; null when there is none. */
function charsetOf(contentType: string | undefined): string | null {
  const m = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return m ? m[2]!.toLowerCase() : null;
}

/**
 * JSON bodies, read strictly before anything looks at them (docs/behaviour.md):
 * - a charset other than UTF-8 is a 415 (RFC 8259: JSON between systems is UTF-8);
 * - bytes that are not well-formed UTF-8 are a 400, never stored as U+FFFD;
 * - nesting deeper than MAX_JSON_DEPTH is a 400, checked once here, so nothing after the
 *   parse (canonicalJson for the idempotency fingerprint, the storable-text check, the
 *   validators) recurses without a bound.
 * Then Fastify's own parser (proto and constructor poisoning refused) parses the text.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest('bodyText', null);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => {
      const charset = charsetOf(request.headers['content-type']);
      if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
        done(
          new ApiError(
            'unsupported_media_type',
            `The body must be JSON in UTF-8; charset=${charset.slice(0, 40)} is not accepted.`,
          ),
        );
        return;
      }
      let text: string;
      try {
        text = utf8.decode(body);
      } catch {
        done(invalid('The body is not well-formed UTF-8.', [{ field: 'body', message: 'is not well-formed UTF-8' }]));
        return;
      }
      request.bodyText = text;
      if (jsonDepthOver(text, MAX_JSON_DEPTH)) {
        done(
          invalid(`The body nests objects and arrays more than ${MAX_JSON_DEPTH} deep.`, [
            { field: 'body', message: `nests more than ${MAX_JSON_DEPTH} levels deep` },
          ]),
        );
        return;
      }
      parseJson(request, text, done);
    },
  );
}
