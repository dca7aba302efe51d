import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOGUE, ERROR_CODES } from '../errors.ts';
import { htmlCsp } from './security-headers.ts';

/**
 * The documents every problem's `type` points at (SPEC "Errors": `{errors_url}#<code>`):
 * one page, one anchor per code, served here so the default ERRORS_URL is not a dead link.
 */
const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const code = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}small{color:#666;font-weight:normal}section:target{background:#fff8d6}';

function page(): string {
  const rows = ERROR_CODES.map((c) => {
    const entry = ERROR_CATALOGUE[c];
    return `<section id="${c}"><h2><code>${c}</code> <small>${entry.status}</small></h2><p><strong>${escapeHtml(entry.title)}.</strong> ${code(entry.hint)}</p></section>`;
  }).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Venue API errors</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style>
</head><body><h1>Venue API errors</h1>
<p>Every error is an RFC 9457 problem document whose <code>type</code> links here; branch on <code>code</code>, and quote <code>request_id</code> when you report a failure.</p>
${rows}
</body></html>`;
}

export async function errorDocsRoute(app: FastifyInstance) {
  const html = page();
  // Its one inline style by hash; nothing else may load or run (src/http/security-headers.ts).
  const csp = htmlCsp([STYLE]);
  app.get('/docs/errors', { config: { access: { kind: 'public' } }, schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'public, max-age=3600')
      .header('Content-Security-Policy', csp)
      .send(html),
  );
}
