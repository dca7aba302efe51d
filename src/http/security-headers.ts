import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Security headers of every answer (docs/behaviour.md), kept to what a JSON API needs instead
 * of @fastify/helmet's browser set: the console and the API reference register their own,
 * scoped helmet, and an answer that already carries a header from it keeps that one.
 * No CORS headers: the API is server to server (docs/behaviour.md "Headers and browsers").
 */
export const NOSNIFF = 'nosniff';

/**
 * HTML we serve loads nothing and runs no script unless it says so: everything is refused,
 * no one may frame it. A page with inline style names it by hash (htmlCsp), never
 * 'unsafe-inline'.
 */
export function htmlCsp(inlineStyles: string[] = []): string {
  const styles = inlineStyles.map((css) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  return [
    "default-src 'none'",
    ...(styles.length > 0 ? [`style-src ${styles.join(' ')}`] : []),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STRICT_CSP = htmlCsp();

export const securityHeaders = fp(async (app: FastifyInstance) => {
  // onSend: it runs for every answer Fastify sends, errors and 404s included.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('x-content-type-options')) reply.header('X-Content-Type-Options', NOSNIFF);
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && /^text\/html\b/i.test(type) && !reply.hasHeader('content-security-policy')) {
      reply.header('Content-Security-Policy', STRICT_CSP);
    }
    done(null, payload);
  });
});
